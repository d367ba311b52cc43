// The embedded cluster's HTTP API server: routes each request to discovery, CRUD, watch or a
// subresource. Every failure becomes a Status answer; nothing a client sends can crash it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { apiGroup, apiGroupList, coreVersions, resourceList, versionInfo } from "./discovery.js";
import type { ExecHandler } from "./hooks.js";
import { sendError, sendJson, sendText } from "./http.js";
import { type AccessGate, type ObjectDeps, serveObject } from "./object/index.js";
import { resourceByPath } from "./resources.js";
import { parseRoute, type Route } from "./route.js";
import { ApiError } from "./status.js";

export type { AccessGate } from "./object/index.js";

export interface ApiServerDeps extends ObjectDeps {
  exec?: ExecHandler;
  /** Serve HTTPS with this certificate; clients may present one signed by `ca`. */
  tls?: { key: string; cert: string; ca: string };
  /** Authentication and authorization of every request, before it is routed. */
  auth?: AccessGate;
  /** Upgrade requests (exec over WebSocket) are handed here. */
  onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer, route: Route & { type: "object" }) => void;
}

export class ApiServer {
  private server?: Server;
  private readonly sockets = new Set<Duplex>();

  constructor(private readonly deps: ApiServerDeps) {}

  async listen(port = 0, host = "127.0.0.1"): Promise<number> {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((e) => sendError(res, e));
    };
    const tls = this.deps.tls;
    // requestCert without rejectUnauthorized: a bad client certificate is a 401, as kube-apiserver answers
    const server = tls
      ? createTlsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, handler)
      : createServer(handler);
    server.on("upgrade", (req, socket, head) => this.upgrade(req, socket, head));
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((r) => s.close(() => r()));
  }

  /** Built-in resources first, then those the CRDs serve. */
  private readonly lookup = (g: string, v: string, r: string) =>
    resourceByPath(g, v, r) ?? this.deps.registry.custom.byPath(g, v, r);

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      this.deps.auth?.admit(req, url, true);
      const route = parseRoute(url.pathname);
      if (route?.type === "object" && route.subresource === "exec" && this.deps.onUpgrade) {
        this.deps.onUpgrade(req, socket, head, route);
        return;
      }
      socket.end(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nupgrade is served only for pods/exec\n",
      );
    } catch (e) {
      if (e instanceof ApiError && (e.code === 401 || e.code === 403)) {
        const body = JSON.stringify(e.toStatus());
        const status = e.code === 401 ? "Unauthorized" : "Forbidden";
        socket.end(
          `HTTP/1.1 ${e.code} ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        return;
      }
      const msg = e instanceof ApiError ? e.message : "bad upgrade request";
      socket.end(`HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n${msg}\n`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://x");
    const q = url.searchParams;
    const user = this.deps.auth?.admit(req, url);
    const route = parseRoute(url.pathname, this.lookup);
    if (!route) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    const custom = this.deps.registry.custom.resources();
    switch (route.type) {
      case "version":
        return sendJson(
          res,
          200,
          versionInfo(
            this.deps.clock.speed,
            this.deps.clock.toWall(this.deps.clock.now()),
            !user || user.groups.includes("system:masters"),
            this.deps.clock.shiftMs ?? 0,
          ),
        );
      case "core-versions":
        return sendJson(res, 200, coreVersions());
      case "groups":
        return sendJson(res, 200, apiGroupList(custom));
      case "group": {
        const g = apiGroup(route.group, custom);
        if (!g) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
        return sendJson(res, 200, g);
      }
      case "resources": {
        const list = resourceList(route.group, route.version, custom);
        if (!list) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
        return sendJson(res, 200, list);
      }
      case "openapi-v2":
        // An empty protobuf-typed body makes both kubectl versions skip client-side validation.
        res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": 0 });
        return res.end();
      case "health":
        return sendText(res, 200, "ok");
      case "object":
        return serveObject({
          req,
          res,
          r: route,
          q,
          method: req.method ?? "GET",
          dryRun: q.getAll("dryRun").includes("All"),
          deps: this.deps,
        });
    }
  }
}
