// pods/exec over SPDY/3.1, what kubectl before 1.30 speaks (and later ones with
// KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false). Modelled on kubernetes' httpstream.Handshake
// (apimachinery/pkg/util/httpstream/httpstream.go), its spdy upgrader and the kubelet's
// remotecommand server (kubelet/pkg/cri/streaming/remotecommand/httpstream.go): the client asks
// for `Upgrade: SPDY/3.1` with the X-Stream-Protocol-Version values it speaks, the server answers
// 101 with the one it picked, then the client opens one stream per channel (SYN_STREAM with a
// `streamtype` header: error, stdin, stdout, stderr, resize), each acknowledged with SYN_REPLY.
// Once the streams the request asked for are open the command runs; stdout and stderr end with
// FIN, then the error stream carries the result (a v1 Status from v4 on, plain text before) and
// the connection goes away.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ExecHandler } from "../../api/hooks.js";
import { Pipe } from "../../userland/stream.js";
import {
  dataFrames,
  FLAG_FIN,
  type Frame,
  FrameReader,
  goAway,
  ping,
  RST_PROTOCOL_ERROR,
  synReply,
} from "./spdy-frame.js";
import { HeaderCompressor, HeaderDecompressor } from "./spdy-headers.js";
import { exitStatus, type Target } from "./target.js";

/** In the kubelet's order of preference (remotecommand.SupportedStreamingProtocols). */
export const SPDY_EXEC_PROTOCOLS = [
  "v4.channel.k8s.io",
  "v3.channel.k8s.io",
  "v2.channel.k8s.io",
  "channel.k8s.io",
];

/** How long the kubelet waits for the client to open its streams (streamCreationTimeout). */
const STREAM_CREATION_MS = 30_000;

export function isSpdyUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? "")
    .toLowerCase()
    .split(",")
    .some((p) => p.trim() === "spdy/3.1");
}

/** httpstream.Handshake: the first of the server's protocols the client offered; none offered is v1. */
function negotiate(req: IncomingMessage): string | undefined {
  const raw = req.headers["x-stream-protocol-version"];
  const offered = (Array.isArray(raw) ? raw.join(",") : (raw ?? ""))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!offered.length) return "channel.k8s.io";
  return SPDY_EXEC_PROTOCOLS.find((p) => offered.includes(p));
}

/** Upgrades the connection to SPDY/3.1 and runs the exec session on it. */
export function spdyExec(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: Target,
  exec: ExecHandler,
) {
  const protocol = negotiate(req);
  if (!protocol) {
    const raw = req.headers["x-stream-protocol-version"];
    const body = `unable to upgrade: unable to negotiate protocol: client supports [${[raw].flat().join(" ")}], server accepts [${SPDY_EXEC_PROTOCOLS.join(" ")}]`;
    socket.end(
      `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nX-Accepted-Stream-Protocol-Versions: ${SPDY_EXEC_PROTOCOLS.join(", ")}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    return;
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  new SpdyExecSession(socket, target, exec, protocol).start(head);
}

class SpdyExecSession {
  private readonly reader = new FrameReader(new HeaderDecompressor());
  private readonly compressor = new HeaderCompressor();
  /** stream id → streamtype, and the reverse for the channels the server writes. */
  private readonly types = new Map<number, string>();
  private readonly ids = new Map<string, number>();
  private readonly stdin: Pipe | undefined;
  private readonly expected: number;
  private lastStreamId = 0;
  private started = false;
  private creation?: NodeJS.Timeout;
  private done = false;
  private gone!: () => void;
  private readonly aborted = new Promise<void>((r) => {
    this.gone = r;
  });

  constructor(
    private readonly socket: Duplex,
    private readonly t: Target,
    private readonly exec: ExecHandler,
    private readonly protocol: string,
  ) {
    this.stdin = t.stdin ? new Pipe() : undefined;
    // the kubelet's count: error, each requested channel, and resize for a tty from v3 on
    const resizes = t.tty && (protocol === "v4.channel.k8s.io" || protocol === "v3.channel.k8s.io");
    this.expected = 1 + Number(t.stdin) + Number(t.stdout) + Number(t.stderr) + Number(resizes);
  }

  start(head: Buffer) {
    const s = this.socket;
    s.on("data", (b: Buffer) => this.receive(b));
    s.on("close", () => this.hangUp());
    s.on("error", () => s.destroy());
    // the kubelet gives up on a client that never opens its streams
    this.creation = setTimeout(() => this.finish(), STREAM_CREATION_MS).unref();
    if (head.length) this.receive(head);
  }

  private hangUp() {
    this.stdin?.end();
    this.gone();
  }

  private write(...frames: Buffer[]) {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(Buffer.concat(frames));
  }

  private receive(b: Buffer) {
    let frames: Frame[];
    try {
      frames = this.reader.push(b);
    } catch {
      this.write(goAway(this.lastStreamId, RST_PROTOCOL_ERROR));
      this.socket.destroy();
      return;
    }
    for (const f of frames) this.handle(f);
  }

  private handle(f: Frame) {
    switch (f.kind) {
      case "syn_stream": {
        const type = f.headers.get("streamtype")?.[0] ?? "";
        this.lastStreamId = Math.max(this.lastStreamId, f.streamId);
        this.types.set(f.streamId, type);
        if (!this.ids.has(type)) this.ids.set(type, f.streamId);
        this.write(synReply(this.compressor, f.streamId));
        if (type === "stdin" && f.flags & FLAG_FIN) this.stdin?.end();
        if (!this.started && this.ids.size >= this.expected) this.run();
        return;
      }
      case "data":
        // resize frames carry the terminal size, which the simulated terminal does not have
        if (this.types.get(f.streamId) !== "stdin") return;
        this.stdin?.write(f.data);
        if (f.flags & FLAG_FIN) this.stdin?.end();
        return;
      case "rst_stream":
        if (this.types.get(f.streamId) === "stdin") this.stdin?.end();
        return;
      case "ping":
        this.write(ping(f.id));
        return;
      case "goaway":
        this.hangUp();
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do for exec
    }
  }

  private send(type: string, data: string | Buffer, fin = false) {
    const id = this.ids.get(type);
    const b = typeof data === "string" ? Buffer.from(data) : data;
    if (id === undefined || this.done || (!b.length && !fin)) return;
    this.write(...dataFrames(id, b, fin));
  }

  private run() {
    this.started = true;
    clearTimeout(this.creation);
    const t = this.t;
    const structured = this.protocol === "v4.channel.k8s.io";
    let error = "";
    this.exec
      .exec(
        { pod: t.pod, container: t.container, command: t.command, tty: t.tty },
        {
          stdin: this.stdin,
          // with a tty there is one output stream: stderr goes to the terminal too
          stdout: (d) => t.stdout && this.send("stdout", d),
          stderr: (d) => (t.tty ? t.stdout && this.send("stdout", d) : t.stderr && this.send("stderr", d)),
          aborted: this.aborted,
        },
      )
      .then(
        (code) => {
          if (structured) error = JSON.stringify(exitStatus(t.command, code));
          else if (code !== 0) error = String(exitStatus(t.command, code).message);
        },
        (e: unknown) => {
          const message = `Internal error occurred: error executing command in container: ${(e as Error)?.message ?? String(e)}`;
          error = structured
            ? JSON.stringify({ metadata: {}, status: "Failure", message, reason: "InternalError", code: 500 })
            : message;
        },
      )
      .finally(() => {
        this.stdin?.close();
        // kubectl reads stdout and stderr to their end, then the error stream
        this.send("stdout", "", true);
        this.send("stderr", "", true);
        this.send("error", error, true);
        this.finish();
      });
  }

  /** As spdystream's Connection.Close: GOAWAY, then the client closes (or a grace period ends). */
  private finish() {
    if (this.done) return;
    this.done = true;
    this.write(goAway(this.lastStreamId));
    setTimeout(() => this.socket.end(), 5_000).unref();
  }
}
