// A local HTTP server that speaks a provider's wire protocol from a script, so the real SDKs are
// exercised end to end (HTTP, SSE framing, error statuses, headers) without the network.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: WireBody;
}

/** A request's JSON body as the tests read it: the provider's fields, open for the rest. */
export interface WireBody {
  model?: string;
  messages?: { role: string; content: unknown }[];
  [field: string]: unknown;
}

export type Reply =
  /** A plain JSON answer (errors). */
  | { status: number; json: unknown; headers?: Record<string, string> }
  /** A 200 event stream, one write per frame. */
  | { sse: string[] }
  /** Send these frames, then cut the connection (a reset mid-stream). */
  | { sse: string[]; cut: true };

export interface WireServer {
  /** http://127.0.0.1:<port> */
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** `reply` is asked once per request, with the request and its 1-based number. */
export async function startWireServer(reply: (req: Seen, n: number) => Reply): Promise<WireServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const s: Seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as WireBody) : {},
      };
      seen.push(s);
      const r = reply(s, seen.length);
      if ("json" in r) {
        res.writeHead(r.status, { "content-type": "application/json", ...r.headers });
        res.end(JSON.stringify(r.json));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const frame of r.sse) res.write(frame);
      if ("cut" in r) res.socket?.destroy();
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** OpenAI chat-completions SSE: `data: {...}` frames, then `data: [DONE]`. */
export function openaiFrames(chunks: object[]): string[] {
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), "data: [DONE]\n\n"];
}

/** One chat-completions chunk with a delta for choice 0. */
export function delta(d: object, finish: string | null = null): object {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "m",
    choices: [{ index: 0, delta: d, finish_reason: finish }],
  };
}

/** Anthropic Messages SSE: `event: <type>` and `data: {...}` per event. */
export function anthropicFrames(events: { type: string; [k: string]: unknown }[]): string[] {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
}

/** A retry clock that records the waits instead of waiting. */
export function recordingClock() {
  const sleeps: number[] = [];
  return { sleeps, clock: { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0 } };
}
