// Raw HTTPS requests to the embedded cluster for tests that speak to the API without a client
// library: they trust the cluster CA and authenticate as its admin (or with a given token).
import { request } from "node:https";
import type { EmbeddedCluster } from "../../src/sim/index.js";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawOptions {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Authenticate with this bearer token instead of the admin certificate. */
  token?: string;
  /** Send no credentials at all (system:anonymous). */
  anonymous?: boolean;
  signal?: AbortSignal;
}

export function rawRequest(c: EmbeddedCluster, path: string, o: RawOptions = {}): Promise<RawResponse> {
  const { ca, admin } = c.auth.pki;
  const useCert = !o.token && !o.anonymous;
  return new Promise((resolve, reject) => {
    const req = request(
      `${c.url}${path}`,
      {
        method: o.method ?? "GET",
        ca,
        ...(useCert ? { cert: admin.cert, key: admin.key } : {}),
        headers: {
          ...(o.body !== undefined ? { "Content-Length": Buffer.byteLength(o.body) } : {}),
          ...(o.token ? { Authorization: `Bearer ${o.token}` } : {}),
          ...o.headers,
        },
        signal: o.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(o.body);
  });
}
