// Small HTTP helpers for the API server: reading bodies, answering JSON and Status errors.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./status.js";

const MAX_BODY = 16 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, "BadRequest", "request entity too large: limit is 16 MiB");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function parseJson(text: string): unknown {
  if (!text.trim()) throw new ApiError(400, "BadRequest", "the request body is empty; send a JSON object");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, "BadRequest", `the request body is not valid JSON: ${(e as Error).message}`);
  }
}

export function sendJson(res: ServerResponse, code: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    "Cache-Control": "no-cache, private",
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const e =
    err instanceof ApiError
      ? err
      : new ApiError(
          500,
          "InternalError",
          `Internal error occurred: ${(err as Error)?.message ?? String(err)}`,
        );
  if (!(err instanceof ApiError)) console.error("embedded cluster: internal error:", err);
  // as the API server does for a Status that suggests when to retry (429, 504)
  if (e.details?.retryAfterSeconds) res.setHeader("Retry-After", String(e.details.retryAfterSeconds));
  sendJson(res, e.code, e.toStatus());
}

export function sendText(res: ServerResponse, code: number, text: string, type = "text/plain") {
  res.writeHead(code, { "Content-Type": type, "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}
