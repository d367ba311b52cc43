// The server on streamable HTTP, stateless (a fresh McpServer per request over the same case and
// log, which is all the tools need): on a unix socket that the sandbox's relay reaches (bwrap), or
// on 127.0.0.1 serving only our own uid's connections, as the API proxy does (--sandbox none).
// Both answer only requests addressed to the loopback port (Host) and sent from no page or a
// loopback one (Origin): a web page that rebinds its name to 127.0.0.1 gets 403 (the MCP
// transport spec's "servers MUST validate the Origin header"; the SDK's DNS rebinding protection).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { sameUser } from "../sandbox/peer.js";

/** The path the server answers on. */
export const MCP_PATH = "/mcp";

export interface McpListener {
  /** http://127.0.0.1:PORT/mcp when on TCP. */
  url?: string;
  socketPath?: string;
  close(): Promise<void>;
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The Host and Origin values of a request addressed to loopback `port`, and only those. */
export function loopbackNames(port: number): { allowedHosts: string[]; allowedOrigins: string[] } {
  const hosts = ["127.0.0.1", "localhost", "[::1]"].map((h) => `${h}:${port}`);
  return { allowedHosts: hosts, allowedOrigins: hosts.map((h) => `http://${h}`) };
}

async function serveOne(
  make: () => McpServer,
  port: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
) {
  const server = make();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    ...loopbackNames(port),
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/**
 * Listen on `socketPath`, or on loopback TCP (port 0: a free one) when none is given. On a socket,
 * `hostPort` is the loopback port its clients address (the relay's, which the TCP listener has).
 */
export async function listenMcp(
  make: () => McpServer,
  o: { socketPath: string; hostPort: number } | { socketPath?: undefined; port?: number } = {},
): Promise<McpListener> {
  const srv = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://inside").pathname;
    if (path !== MCP_PATH) return refuse(res, 404, `the MCP server answers on ${MCP_PATH}`);
    if (req.method !== "POST") return refuse(res, 405, "stateless server: POST only");
    if (!o.socketPath && !sameUser((srv.address() as AddressInfo).port, req.socket.remotePort ?? 0))
      return refuse(res, 403, "this server acts as the case's identity for its own user only");
    const port = o.socketPath ? o.hostPort : (srv.address() as AddressInfo).port;
    serveOne(make, port, req, res).catch((e: Error) => {
      if (!res.headersSent) refuse(res, 500, e.message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    srv.once("error", reject);
    if (o.socketPath) srv.listen(o.socketPath, resolve);
    else srv.listen("port" in o ? (o.port ?? 0) : 0, "127.0.0.1", resolve);
  });
  const port = o.socketPath ? undefined : (srv.address() as AddressInfo).port;
  return {
    url: port === undefined ? undefined : `http://127.0.0.1:${port}${MCP_PATH}`,
    socketPath: o.socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        srv.closeAllConnections();
        srv.close(() => resolve());
      }),
  };
}
