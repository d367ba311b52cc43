// One HTTP request from a pod, carried through the cluster in cluster time: resolve the name
// (names.ts), follow kube-proxy to a ready endpoint and the pod's network (resolve.ts: the same
// resolution the applications' calls take), cross the network both ways (NetworkChaos delay/loss
// on the handshake and the exchange), pass Chaos Mesh's HTTP proxy if one sits on the port, and
// get the service's answer (http.ts). No ready endpoint, a policy or nothing listening: refused at
// once; a partition or a port kube-proxy has no rule for: the connect times out; a slow path:
// late, or past the caller's timeouts.
import { type Answer, answer, exchangeMs, handshakeMs, reasonOf } from "./http.js";
import { type Caller, lookup, whoHas } from "./names.js";
import { dnsBlocked } from "./netpol.js";
import { httpFaults, needsDns, open, placeIp } from "./resolve.js";

export type Outcome =
  /** connectMs: when the TCP handshake completed (curl's time_connect). */
  | { kind: "ok"; ip: string; answer: Answer; ms: number; connectMs: number }
  | { kind: "dns"; timeout: boolean }
  | { kind: "refused"; ip: string; ms: number }
  | { kind: "unreachable"; ip: string; ms: number }
  | { kind: "reset"; ip: string; ms: number }
  /** The server closed the connection without a response (HTTPChaos abort). */
  | { kind: "empty"; ip: string; ms: number }
  | { kind: "timeout"; phase: "connect" | "read"; ip: string; ms: number }
  | { kind: "bad-url" };

export interface Request {
  url: string;
  method: string;
  /** The request body (POST data). */
  body?: string;
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
  // an egress policy that leaves out CoreDNS: the query is rejected, the lookup fails at once
  if (needsDns(p, host) && dnsBlocked(p.ctx, p.pod)) return { kind: "dns", timeout: true };
  const r = await lookup(p, host);
  if ("error" in r) return { kind: "dns", timeout: r.error === "timeout" };
  const ip = r.ips[0];
  const to = placeIp(p.ctx, p.pod, whoHas(p, ip), ip, port);
  const rnd = () => p.ctx.rng.next();
  const wait = async (ms: number) => {
    planned += Math.max(0, ms);
    return ms > 0 ? p.sleep(ms) : true;
  };
  if (to.kind === "refused") {
    await wait(0.2);
    return { kind: "refused", ip, ms: elapsed() };
  }
  if (to.kind === "unreachable") {
    const ms = Math.min(3000, req.connectMs, req.totalMs - elapsed());
    await wait(ms);
    return ms < 3000
      ? { kind: "timeout", phase: "connect", ip, ms: elapsed() }
      : { kind: "unreachable", ip, ms: elapsed() };
  }
  const give = Math.min(req.connectMs, req.totalMs - elapsed());
  if (to.kind !== "pods") {
    await wait(Math.min(give, 127_000));
    return { kind: "timeout", phase: "connect", ip, ms: elapsed() };
  }
  const landing = to.pods[Math.floor(rnd() * to.pods.length)];
  const v = open(p.ctx, p.pod, landing);
  // a partition drops the SYN: the client retries until it gives up
  if (v.kind === "timeout") {
    await wait(Math.min(give, 127_000));
    return { kind: "timeout", phase: "connect", ip, ms: elapsed() };
  }
  // nothing listens, or kube-router's REJECT: the SYN is answered with RST / port unreachable
  if (v.kind === "refused") {
    await wait(0.2);
    return { kind: "refused", ip, ms: elapsed() };
  }
  const { go, back, listener: l } = v;
  const connect = handshakeMs(go, back, rnd);
  if (connect > give) {
    await wait(Math.min(give, 127_000));
    return { kind: "timeout", phase: "connect", ip, ms: elapsed() };
  }
  await wait(connect);
  const connectMs = elapsed();
  if (l.protocol !== "http") {
    await wait(exchangeMs(go, back, rnd));
    return { kind: "reset", ip, ms: elapsed() };
  }
  const path = url.pathname || "/";
  const chaos = httpFaults(p.ctx, landing, { method: req.method, path, openedAt: p.ctx.clock.now() });
  if (chaos.abort === "request") {
    await wait(exchangeMs(go, back, rnd) + chaos.delayMs);
    return { kind: "empty", ip, ms: elapsed() };
  }
  const a: Answer = answer(p.ctx, landing.pod, l, req.method, path, rnd);
  const replaced = httpFaults(p.ctx, landing, {
    method: req.method,
    path,
    openedAt: p.ctx.clock.now(),
    status: a.status,
  });
  const left = req.totalMs - elapsed();
  const took = exchangeMs(go, back, rnd) + a.serverMs + chaos.delayMs;
  if (took > left) {
    await wait(left);
    return { kind: "timeout", phase: "read", ip, ms: elapsed() };
  }
  await wait(took);
  if (replaced.abort === "response") return { kind: "empty", ip, ms: elapsed() };
  return { kind: "ok", ip, answer: withStatus(a, replaced.code), ms: elapsed(), connectMs };
}

/** A response rule's replace.code. */
function withStatus(a: Answer, code: number | undefined): Answer {
  return code === undefined ? a : { ...a, status: code, reason: reasonOf(code) };
}
