// The one way out of the sandbox: a reverse proxy for the Kubernetes API, listening on a unix
// socket (or loopback TCP) that the sandbox reaches through its relay. It speaks plain HTTP to
// the inside and whatever the kubeconfig says (HTTP, or HTTPS with its CA) to the real server,
// authenticates with the kubeconfig's own credentials (so no token or key enters the sandbox, and
// whatever the inside sends as Authorization is dropped), proxies upgrades (exec, attach,
// port-forward), and appends one JSON line per request to an audit log in the case's folder
// (a create's line names the object created: created-name.ts).
import { appendFileSync } from "node:fs";
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { KubeConfig } from "@kubernetes/client-node";
import { keepAliveAgent } from "../util/https-agent.js";
import { BodyTap, createdName } from "./created-name.js";
import { sameUser } from "./peer.js";
import { WaitTracker } from "./waiting.js";

export interface AuditEntry {
  time: string;
  method: string;
  path: string;
  query: string;
  status: number;
  userAgent: string;
  /** A POST's object name (its body's metadata.name, else the answer's): a create's path has none. */
  name?: string;
}

export interface ApiProxyOptions {
  kubeconfig: string;
  /** Where to append one JSON line per API request (none when undefined). */
  auditLog?: string;
  /** A unix socket path, or undefined for 127.0.0.1 on a free port. */
  socketPath?: string;
  /** Told when the inside starts (true) and stops (false) waiting on the cluster (a watch open). */
  onWaiting?: (waiting: boolean) => void;
}

export interface ApiProxy {
  /** http://127.0.0.1:PORT when listening on TCP; undefined on a unix socket. */
  url?: string;
  /**
   * Wall ms so far during which the inside had at least one watch open: the time it waited on
   * the cluster (rollout status, kubectl wait), which the runner counts in cluster time.
   */
  waitedMs(): number;
  close(): Promise<void>;
}

/** A watch: `?watch=true|1` or the old /watch/ paths. */
export function isWatch(url: string | undefined): boolean {
  const u = new URL(url ?? "/", "http://inside");
  const w = u.searchParams.get("watch");
  return w === "true" || w === "1" || /^\/apis?\/(?:[^/]+\/)*watch\//.test(u.pathname);
}

// hop-by-hop headers (RFC 9110 7.6.1) and the inside's own credentials never go upstream
const DROP = new Set([
  "authorization",
  "proxy-authorization",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
]);

/** The kubeconfig's TLS settings and credentials, as client-node applies them. */
async function credentials(kc: KubeConfig, plain: boolean): Promise<https.RequestOptions> {
  const opts: https.RequestOptions = {};
  try {
    await kc.applyToHTTPSOptions(opts);
  } catch (e) {
    // client-node refuses an http:// server without insecure-skip-tls-verify after it has set the
    // headers; plain HTTP needs no TLS settings, so the headers are all we take
    if (!plain) throw e;
  }
  return opts;
}

export async function startApiProxy(o: ApiProxyOptions): Promise<ApiProxy> {
  const kc = new KubeConfig();
  kc.loadFromFile(o.kubeconfig);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${o.kubeconfig} has no current cluster`);
  const target = new URL(cluster.server);
  const transport = target.protocol === "https:" ? https : http;
  // one agent for the whole case (keep-alive, one TLS session); credentials are asked for each
  // request, so exec plugins and token files that rotate keep working
  const plain = target.protocol === "http:";
  const agent = plain
    ? new http.Agent({ keepAlive: true })
    : keepAliveAgent((await credentials(kc, false)).agent as http.Agent | undefined);

  const upstream = async (req: IncomingMessage): Promise<http.RequestOptions> => {
    const opts = await credentials(kc, plain);
    const headers: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!DROP.has(k) && v !== undefined) headers[k] = v;
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (v !== undefined) headers[k] = v;
    if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString("base64")}`;
    headers.host = target.host;
    const base = target.pathname.replace(/\/$/, "");
    return {
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: `${base}${req.url ?? "/"}`,
      headers,
      agent,
    };
  };

  const audit = (req: IncomingMessage, status: number, name?: string) => {
    if (!o.auditLog) return;
    const u = new URL(req.url ?? "/", "http://inside");
    const entry: AuditEntry = {
      time: new Date().toISOString(),
      method: req.method ?? "",
      path: u.pathname,
      query: u.search.replace(/^\?/, ""),
      status,
      userAgent: String(req.headers["user-agent"] ?? ""),
      ...(name ? { name } : {}),
    };
    appendFileSync(o.auditLog, `${JSON.stringify(entry)}\n`);
  };

  const waits = new WaitTracker(o.onWaiting);

  /**
   * A POST's line once its object's name is known: the request body's, else (a generated name)
   * the answer's, read as it passes on to the inside.
   */
  const auditPost = (req: IncomingMessage, sent: BodyTap, ur: IncomingMessage) => {
    const status = ur.statusCode ?? 502;
    const name = createdName(sent.text(), req.headers["content-type"]);
    if (name || status >= 400) return audit(req, status, name);
    const answer = new BodyTap();
    ur.on("data", (c: Buffer) => answer.add(c));
    ur.once("close", () => audit(req, status, createdName(answer.text(), ur.headers["content-type"])));
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const watch = isWatch(req.url);
    if (watch) {
      waits.opened();
      res.once("close", () => waits.closed());
    }
    const sent = req.method === "POST" ? new BodyTap() : undefined;
    void upstream(req).then(
      (opts) => {
        const up = transport.request(opts, (ur) => {
          if (sent) auditPost(req, sent, ur);
          else audit(req, ur.statusCode ?? 502);
          res.writeHead(ur.statusCode ?? 502, ur.statusMessage, ur.headers);
          // a watch with nothing to tell yet must still answer now: client-go waits for the headers
          res.flushHeaders();
          if (watch) ur.on("data", () => waits.event());
          ur.pipe(res);
        });
        up.on("error", (e) => fail(req, res, e));
        // a watch the inside gives up on ends upstream too
        res.on("close", () => up.destroy());
        // read beside the pipe, attached with it: a listener of its own would start the flow early
        if (sent) req.on("data", (c: Buffer) => sent.add(c));
        req.pipe(up);
      },
      (e: unknown) => fail(req, res, e),
    );
  };

  const fail = (req: IncomingMessage, res: ServerResponse, e: unknown) => {
    audit(req, 502);
    if (res.headersSent) return void res.destroy();
    const message = `API proxy: ${(e as Error).message}`;
    res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, code: 502 }));
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    void upstream(req).then(
      (opts) => {
        opts.headers = { ...opts.headers, connection: "Upgrade", upgrade: req.headers.upgrade ?? "" };
        const up = transport.request(opts);
        up.on("upgrade", (ur, usock, uhead) => {
          audit(req, ur.statusCode ?? 101);
          const lines = [`HTTP/1.1 ${ur.statusCode} ${ur.statusMessage}`];
          for (let i = 0; i < ur.rawHeaders.length; i += 2)
            lines.push(`${ur.rawHeaders[i]}: ${ur.rawHeaders[i + 1]}`);
          socket.write(`${lines.join("\r\n")}\r\n\r\n`);
          if (uhead.length) socket.write(uhead);
          if (head.length) usock.write(head);
          usock.on("error", () => socket.destroy());
          socket.on("close", () => usock.destroy());
          usock.on("close", () => socket.destroy());
          usock.pipe(socket).pipe(usock);
        });
        // the server refused the upgrade (403, 400): pass its answer on as is
        up.on("response", (ur) => {
          audit(req, ur.statusCode ?? 502);
          const lines = [`HTTP/1.1 ${ur.statusCode} ${ur.statusMessage}`];
          for (let i = 0; i < ur.rawHeaders.length; i += 2)
            lines.push(`${ur.rawHeaders[i]}: ${ur.rawHeaders[i + 1]}`);
          socket.write(`${lines.join("\r\n")}\r\n\r\n`);
          ur.pipe(socket);
        });
        up.on("error", () => {
          audit(req, 502);
          socket.destroy();
        });
        up.end();
      },
      () => {
        audit(req, 502);
        socket.destroy();
      },
    );
  };

  const server = http.createServer(onRequest);
  server.on("upgrade", onUpgrade);
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    // on loopback TCP (--sandbox none) only our own user's processes are served
    if (!o.socketPath && s.localPort && s.remotePort && !sameUser(s.localPort, s.remotePort)) {
      s.destroy();
      return;
    }
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (o.socketPath) server.listen(o.socketPath, resolve);
    else server.listen(0, "127.0.0.1", resolve);
  });
  const addr = server.address();
  return {
    url: addr && typeof addr === "object" ? `http://127.0.0.1:${addr.port}` : undefined,
    waitedMs: () => waits.waitedMs(),
    close: () =>
      new Promise<void>((resolve) => {
        waits.stop();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        if (agent && typeof agent === "object" && "destroy" in agent) (agent as http.Agent).destroy();
      }),
  };
}
