// fetch() for the embedded cluster's HTTPS API as its admin: Node's global fetch cannot present
// a client certificate, so this one makes the request with node:https and answers a Response.
import { request } from "node:https";
import { Readable } from "node:stream";
import type { EmbeddedCluster } from "../src/sim/index.js";

export function adminFetch(c: EmbeddedCluster) {
  const { ca, admin } = c.auth.pki;
  return (
    url: string,
    init: { method?: string; body?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ) =>
    new Promise<Response>((resolve, reject) => {
      const req = request(
        url,
        {
          method: init.method ?? "GET",
          ca,
          cert: admin.cert,
          key: admin.key,
          headers: init.headers,
          signal: init.signal,
        },
        (res) => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers.set(k, v);
          resolve(
            new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, {
              status: res.statusCode,
              headers,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end(init.body);
    });
}
