// pods/exec over WebSocket, as the kubelet's streaming server speaks it behind the API server.
// Every frame starts with its channel: 0 stdin, 1 stdout, 2 stderr, 3 error/status, 4 resize;
// v5 adds 255 = close a stream (the client's stdin ended). v4/v5 end with a v1 Status on
// channel 3, which is how kubectl and client-node learn the exit code. Problems found before the
// upgrade answer as HTTP errors, as the API server (Status JSON) or the kubelet (plain text) would.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { ExecHandler } from "../../api/hooks.js";
import type { Registry } from "../../api/registry.js";
import type { Route } from "../../api/route.js";
import { ApiError, badRequest } from "../../api/status.js";
import type { Container, ContainerStatus, Pod } from "../../core/objects.js";
import { Pipe } from "../../userland/stream.js";
import { isSpdyUpgrade, spdyExec } from "./spdy-exec.js";
import { exitStatus, type Target } from "./target.js";

/** In the server's order of preference; kubectl 1.32 offers v5 and v4, client-node v5..v1. */
export const EXEC_PROTOCOLS = [
  "v5.channel.k8s.io",
  "v4.channel.k8s.io",
  "v3.channel.k8s.io",
  "v2.channel.k8s.io",
  "channel.k8s.io",
];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE = 255;

/**
 * Wall ms between the upgrade and the command's start, as runc's exec takes on a node. kubectl's
 * WebSocket client creates its streams after it starts reading, and drops frames for a stream it
 * has not created yet ("Unknown stream id 1, discarding message"): a command that answered within
 * a millisecond could lose its output and its exit status.
 */
const EXEC_START_MS = 40;

/** An error the kubelet reports as plain text (the API server passes it through unchanged). */
class KubeletError extends Error {}

/** The container exec defaults to: the only one, the annotated default, else the first. */
export function defaultContainer(pod: Pod): string | undefined {
  const names: string[] = (pod.spec?.containers ?? []).map((c: Container) => c.name);
  if (names.length === 1) return names[0];
  const annotated = pod.metadata.annotations?.["kubectl.kubernetes.io/default-container"];
  return annotated && names.includes(annotated) ? annotated : names[0];
}

function prepare(registry: Registry, req: IncomingMessage, route: Route & { type: "object" }): Target {
  if (!route.name) throw badRequest("exec needs a pod name");
  const q = new URL(req.url ?? "/", "http://x").searchParams;
  const pod = registry.get(route.rt, route.namespace, route.name) as Pod;
  const flag = (n: string) => ["true", "1"].includes((q.get(n) ?? "").toLowerCase());
  const command = q.getAll("command");
  if (!command.length) throw badRequest("you must specify at least one command for the container");
  const t = { stdin: flag("stdin"), stdout: flag("stdout"), stderr: flag("stderr"), tty: flag("tty") };
  if (!t.stdin && !t.stdout && !t.stderr)
    throw badRequest("you must specify at least 1 of stdin, stdout, stderr");
  const container = q.get("container") || defaultContainer(pod);
  if (!container) throw badRequest(`a container name must be specified for pod ${route.name}`);
  if (!(pod.spec?.containers ?? []).some((c: Container) => c.name === container))
    throw badRequest(`container ${container} is not valid for pod ${route.name}`);
  if (!pod.spec?.nodeName) throw badRequest(`pod ${route.name} does not have a host assigned`);
  const st = (pod.status?.containerStatuses ?? []).find((s: ContainerStatus) => s.name === container);
  if (!st?.state?.running) throw new KubeletError(`container not found ("${container}")`);
  return { pod, container, command, ...t };
}

function refuse(socket: Duplex, code: number, type: string, body: string) {
  const reason = { 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error" }[code] ?? "Error";
  socket.end(
    `HTTP/1.1 ${code} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function refuseWith(socket: Duplex, e: unknown) {
  if (e instanceof ApiError) refuse(socket, e.code, "application/json", JSON.stringify(e.toStatus()));
  else if (e instanceof KubeletError) refuse(socket, 500, "text/plain; charset=utf-8", e.message);
  else refuse(socket, 500, "text/plain; charset=utf-8", `exec failed: ${(e as Error)?.message ?? String(e)}`);
}

const toBuffer = (d: RawData): Buffer =>
  Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d);

function session(ws: WebSocket, t: Target, exec: ExecHandler) {
  const structured = ws.protocol === "v5.channel.k8s.io" || ws.protocol === "v4.channel.k8s.io";
  const stdin = t.stdin ? new Pipe() : undefined;
  let gone!: () => void;
  const aborted = new Promise<void>((r) => {
    gone = r;
  });
  const send = (channel: number, data: string | Buffer) => {
    const b = typeof data === "string" ? Buffer.from(data) : data;
    if (b.length && ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), b]));
  };
  ws.on("message", (data) => {
    const b = toBuffer(data);
    if (b[0] === STDIN) stdin?.write(b.subarray(1));
    else if (b[0] === CLOSE && b[1] === STDIN) stdin?.end();
    // RESIZE and anything else: the simulated terminal has no size to change.
  });
  ws.on("close", () => {
    stdin?.end();
    gone();
  });
  ws.on("error", () => ws.terminate());
  setTimeout(() => run(ws, t, exec, { stdin, aborted, send, structured }), EXEC_START_MS);
}

interface Session {
  stdin: Pipe | undefined;
  aborted: Promise<void>;
  send: (channel: number, data: string | Buffer) => void;
  structured: boolean;
}

function run(ws: WebSocket, t: Target, exec: ExecHandler, { stdin, aborted, send, structured }: Session) {
  exec
    .exec(
      { pod: t.pod, container: t.container, command: t.command, tty: t.tty },
      {
        stdin,
        // With a tty there is one output stream: stderr goes to the terminal too.
        stdout: (d) => t.stdout && send(STDOUT, d),
        stderr: (d) => (t.tty ? t.stdout && send(STDOUT, d) : t.stderr && send(STDERR, d)),
        aborted,
      },
    )
    .then(
      (code) => {
        if (structured) send(ERROR, JSON.stringify(exitStatus(t.command, code)));
        else if (code !== 0) send(ERROR, String(exitStatus(t.command, code).message));
      },
      (e: unknown) => {
        const message = `Internal error occurred: error executing command in container: ${(e as Error)?.message ?? String(e)}`;
        send(
          ERROR,
          structured
            ? JSON.stringify({ metadata: {}, status: "Failure", message, reason: "InternalError", code: 500 })
            : message,
        );
      },
    )
    .finally(() => {
      stdin?.close();
      if (ws.readyState === ws.OPEN) ws.close(1000);
    });
}

/** The API server's onUpgrade hook for pods/exec. */
export function execUpgrade(deps: { registry: Registry; exec: ExecHandler }) {
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    handleProtocols: (offered: Set<string>) => EXEC_PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });
  return (req: IncomingMessage, socket: Duplex, head: Buffer, route: Route & { type: "object" }) => {
    let target: Target;
    try {
      target = prepare(deps.registry, req, route);
    } catch (e) {
      return refuseWith(socket, e);
    }
    // kubectl before 1.30, and later ones with KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false, speak SPDY/3.1
    if (isSpdyUpgrade(req)) return spdyExec(req, socket, head, target, deps.exec);
    if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      return refuse(
        socket,
        400,
        "application/json",
        JSON.stringify(
          badRequest(
            "exec is served over WebSocket (v5.channel.k8s.io, v4.channel.k8s.io) or SPDY/3.1 (v4.channel.k8s.io); upgrade to one of them",
          ).toStatus(),
        ),
      );
    }
    wss.handleUpgrade(req, socket, head, (ws) => session(ws, target, deps.exec));
  };
}
