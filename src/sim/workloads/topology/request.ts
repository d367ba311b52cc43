// One HTTP request from a pod, carried through the cluster in cluster time: resolve the name
// (names.ts), follow kube-proxy to a Ready endpoint (http.ts route), cross the network both ways
// (NetworkChaos delay/loss on the handshake and the exchange), and get the service's answer.
// No Ready endpoint: refused at once; a slow path: late, or past the caller's timeouts.
import { type Answer, answer, exchangeMs, handshakeMs, paths, route } from "./http.js";
import { listeners } from "./listeners.js";
import { type Caller, lookup, whoHas } from "./names.js";

export type Outcome =
  /** connectMs: when the TCP handshake completed (curl's time_connect). */
  | { kind: "ok"; ip: string; answer: Answer; ms: number; connectMs: number }
  | { kind: "dns"; timeout: boolean }
  | { kind: "refused"; ip: string; ms: number }
  | { kind: "unreachable"; ip: string; ms: number }
  | { kind: "reset"; ip: string; ms: number }
  | { kind: "timeout"; phase: "connect" | "read"; ip: string; ms: number }
  | { kind: "bad-url" };

export interface Request {
  url: string;
  method: "GET" | "HEAD";
  /** Give up connecting after this long (ms). */
  connectMs: number;
  /** Give up the whole transfer after this long (ms). */
  totalMs: number;
}

export function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    return undefined;
  }
}

/** Carry one request through the cluster, sleeping as long as it takes in cluster time. */
export async function request(p: Caller, req: Request): Promise<Outcome> {
  const url = parseUrl(req.url);
  if (!url || !/^https?:$/.test(url.protocol)) return { kind: "bad-url" };
  // The time a request took is what the model says it takes, not what the event loop managed:
  // under load a fast clock overshoots every sleep, and that must not show as network latency.
  let planned = 0;
  const elapsed = () => planned;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const r = await lookup(p, host);
  if ("error" in r) return { kind: "dns", timeout: r.error === "timeout" };
  const ip = r.ips[0];
  const to = route(p.ctx, whoHas(p, ip), port);
  const rnd = () => p.ctx.rng.next();
  const wait = async (ms: number) => {
    planned += Math.max(0, ms);
    return ms > 0 ? p.sleep(ms) : true;
  };
  if ("refused" in to) {
    await wait(0.2);
    return { kind: "refused", ip, ms: elapsed() };
  }
  if ("unreachable" in to) {
    const ms = Math.min(3000, req.connectMs, req.totalMs - elapsed());
    await wait(ms);
    return ms < 3000
      ? { kind: "timeout", phase: "connect", ip, ms: elapsed() }
      : { kind: "unreachable", ip, ms: elapsed() };
  }
  const give = Math.min(req.connectMs, req.totalMs - elapsed());
  if ("blackhole" in to) {
    await wait(Math.min(give, 127_000));
    return { kind: "timeout", phase: "connect", ip, ms: elapsed() };
  }
  const [go, back] = paths(p.ctx, p.pod, to.pod);
  const connect = handshakeMs(go, back, rnd);
  if (connect > give) {
    await wait(Math.min(give, 127_000));
    return { kind: "timeout", phase: "connect", ip, ms: elapsed() };
  }
  await wait(connect);
  const connectMs = elapsed();
  const l = listeners(p.ctx, to.pod, p.ctx.clock.now()).find((x) => x.port === to.port);
  // nothing listens: the kernel answers the SYN with RST
  if (!l) return { kind: "refused", ip, ms: elapsed() };
  if (l.protocol !== "http") {
    await wait(exchangeMs(go, back, rnd));
    return { kind: "reset", ip, ms: elapsed() };
  }
  const path = url.pathname || "/";
  const a = answer(p.ctx, to.pod, l, req.method, path, rnd);
  const left = req.totalMs - elapsed();
  const took = exchangeMs(go, back, rnd) + a.serverMs;
  if (took > left) {
    await wait(left);
    return { kind: "timeout", phase: "read", ip, ms: elapsed() };
  }
  await wait(took);
  return { kind: "ok", ip, answer: a, ms: elapsed(), connectMs };
}
