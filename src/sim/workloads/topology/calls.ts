// Calls from a caller pod along one edge of the call graph: the address comes from the caller's
// environment as the application reads it (dial.ts), goes through the cluster's resolution
// (resolve.ts: DNS, Service, endpoints, targetPort, NetworkPolicy, partition, listener), over a
// pooled connection or a new one (connections.ts), and the callee answers with its own latency
// and failure rate from the traffic model (a store pod that requires a password the caller does
// not send answers every command with an error: store-auth.ts). `edgeView` is what calls along the edge do on average
// (the traffic model, the logs); `callOnce` draws one call (a user's request through a page).
//
// Network: a call over a new TCP connection costs two round trips (handshake, request) plus a DNS
// lookup through the caller's egress; over a pooled one, one. A NetworkChaos delay adds to every
// crossing of the impaired side; a lost packet is retransmitted after the kernel's RTO (1 s for a
// handshake, 200 ms on an established connection); a partition drops them all.

import { R } from "../../api/resources.js";
import type { Edge, ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod, Service } from "../../core/objects.js";
import { connKey, keepConn, liveConn, pickFor } from "./connections.js";
import { addressOf } from "./dial.js";
import { egress } from "./impairments.js";
import { httpFaults, type Landing, open, place } from "./resolve.js";
import type { SvcState } from "./service-state.js";
import { settingOf } from "./settings.js";
import { resolvedAtStart, restartsOf, startHost } from "./start-names.js";
import { type Refusal, storeFull, storeRefusal, writeShare } from "./store-clients.js";

export type CallOutcome = "ok" | "refused" | "dns" | "timeout" | "reset" | "error";

export interface EdgeView {
  /** Probability of each outcome per call. */
  p: Record<CallOutcome, number>;
  /** Of all calls, those a store answers with an error for want of the right password (store-auth.ts). */
  denied: number;
  /** Why the store refuses them: a password, or no connection (maxclients: store-clients.ts). */
  refusal?: Refusal;
  /** Of all calls, the writes a store over its maxmemory refuses (not in p: reads still work). */
  oom: number;
  /** Duration of a call that gets an answer. */
  latencyMs: number;
  /** Mean time the caller spends on the call, failures included. */
  expectedMs: number;
  /** How long the caller waits for an answer, and for a connection. */
  timeoutMs: number;
  connectTimeoutMs: number;
  /** What a call that times out costs on average (a connect or a read that never ends). */
  timeoutCostMs: number;
  /** Share of the calls each service (topology key) receives. */
  lands: Map<string, number>;
  /** What the caller's logs name: the host and port it dialled, the address it reached. */
  dep: string;
  depPort: number | string;
  depIp: string;
  /** The application makes no such calls (an optional dependency it has no address for). */
  none?: boolean;
  /** The lookups get no answer (rejected or lost: EAI_AGAIN), rather than NXDOMAIN. */
  dnsAgain?: boolean;
}

/** How long callers wait, when their log templates do not say it (PT5S, 5000ms...). */
const TIMEOUT_BY_LANG: [RegExp, number][] = [
  [/^python\/locust/, 60_000], // Locust's requests session waits indefinitely; cap at a minute
  [/^python/, 3_000], // hello-service's urlopen(timeout=3); gRPC Python stubs alike
  [/^java/, 1_000], // Ribbon/Feign's default ReadTimeout
  [/^nginx/, 60_000], // proxy_read_timeout
  [/^(go|nodejs)/, 1_000],
  [/^c#/, 5_000],
];

/** How long a connect may take before the client gives up, where it differs from the wait. */
const CONNECT_BY_LANG: [RegExp, number][] = [
  [/^java/, 1_000], // Ribbon's ConnectTimeout
  [/^nginx/, 60_000], // proxy_connect_timeout
  [/^c#/, 5_000], // StackExchange.Redis connectTimeout
];

/** Parse the wait out of a template's text, e.g. "PT5S" or "(5000ms)" or "after 30000ms". */
function fromTemplates(lines: string[] | undefined): number | undefined {
  for (const l of lines ?? []) {
    const pt = l.match(/PT(\d+)S/);
    if (pt) return Number(pt[1]) * 1000;
    const ms = l.match(/(?:\(|after )(\d{3,})\s?ms/);
    if (ms) return Number(ms[1]);
  }
  return undefined;
}

/** How long the caller waits for an answer: its timeout setting (settings.ts), else its templates' or its runtime's. */
export function timeoutMs(m: ServiceModel, e: Edge, ctx?: SimContext, pod?: Pod): number {
  const set = ctx && pod && !e.store ? settingOf(ctx, pod, m, "timeout") : undefined;
  if (set !== undefined) return set;
  const own = e.store
    ? fromTemplates(m.logs.storeTimeout?.[e.store])
    : fromTemplates(m.logs.dependencyTimeout);
  if (own !== undefined) return own;
  return TIMEOUT_BY_LANG.find(([re]) => re.test(m.lang))?.[1] ?? 3_000;
}

/** A deadline covering the whole call (gRPC, urllib's socket timeout) bounds the connect too. */
export function connectTimeoutMs(m: ServiceModel, e: Edge, ctx?: SimContext, pod?: Pod): number {
  return CONNECT_BY_LANG.find(([re]) => re.test(m.lang))?.[1] ?? timeoutMs(m, e, ctx, pod);
}

/** Base RTT between two pods on one node (veth + bridge), ms. */
export const POD_RTT_MS = 0.1;

const zero = (): Record<CallOutcome, number> => ({
  ok: 0,
  refused: 0,
  dns: 0,
  timeout: 0,
  reset: 0,
  error: 0,
});

/** One place calls along an edge go, with the share of calls that go there. */
interface Spot {
  share: number;
  landing?: Landing;
  /** A failure before any pod is reached (the lookup, kube-proxy, nothing routes the IP). */
  failed?: "dns" | "refused" | "timeout";
  /** The lookup got no answer (rather than NXDOMAIN). */
  dnsAgain?: boolean;
  established?: boolean;
  openedAt: number;
  ip: string;
}

/** The port a bare host is dialled on: its Service's first port, else the callee's own. */
function defaultPort(ctx: SimContext, ns: string, host: string, callee: ServiceModel | undefined): number {
  const svc = ctx.store.get(R("Service"), ns, host.split(".")[0]) as Service | undefined;
  return Number(svc?.spec?.ports?.[0]?.port ?? callee?.port ?? 80);
}

/** Where calls along an edge from one pod go now (computed once, read by several views). */
export interface Spots {
  spots: Spot[];
  dep: string;
  depPort: number | string;
  none?: boolean;
}

/** Where calls along the edge go from this pod now. */
export function spotsOf(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  pod: Pod,
  e: Edge,
): Spots {
  const now = ctx.clock.now();
  const ns = pod.metadata.namespace ?? "";
  const callee = services.get(e.to)?.model;
  const addr = addressOf(ctx, pod, m, e);
  if (addr.kind === "none") return { spots: [], dep: e.dep, depPort: "", none: true };
  if (addr.kind === "bad")
    return { spots: [{ share: 1, failed: "dns", openedAt: now, ip: "" }], dep: addr.raw, depPort: "" };
  const pooled = e.dial.conn === "pooled";
  const key = connKey(pod, m.container, e.store ?? e.to);
  const dep = addr.kind === "addr" ? addr.host : e.dep;
  const live = pooled ? liveConn(ctx, key) : undefined;
  let pods: Landing[];
  let ip = "";
  let depPort: number | string;
  if (addr.kind === "registry") {
    // Nacos: the instances that registered (the application started), by pod IP and server port
    pods = (services.get(e.to)?.pods ?? [])
      .filter((p) => p.status?.phase === "Running" && p.status.podIP && callee?.port)
      .map((p) => ({ pod: p, port: callee!.port! }));
    depPort = callee?.port ?? "";
    if (live)
      return {
        spots: [
          {
            share: 1,
            landing: live.landing,
            established: true,
            openedAt: live.since,
            ip: live.landing.pod.status?.podIP ?? "",
          },
        ],
        dep,
        depPort,
      };
    if (!pods.length) return { spots: [{ share: 1, failed: "refused", openedAt: now, ip }], dep, depPort };
  } else {
    const port = addr.port ?? defaultPort(ctx, ns, addr.host, callee);
    depPort = port;
    // a name resolved once at start (nginx): the address it got then, whatever the name says now
    const host = startHost(e);
    const fixed = host
      ? resolvedAtStart(ctx, pod, m.container, restartsOf(pod, m.container), host)
      : undefined;
    if (fixed && "failed" in fixed)
      return { spots: [{ share: 1, failed: "dns", openedAt: now, ip }], dep, depPort };
    const pl = place({ pod, ctx }, fixed ? fixed.ip : addr.host, port);
    ip = "ip" in pl ? pl.ip : "";
    if (live)
      return {
        spots: [{ share: 1, landing: live.landing, established: true, openedAt: live.since, ip }],
        dep,
        depPort,
      };
    if (pl.kind === "dns")
      return { spots: [{ share: 1, failed: "dns", dnsAgain: pl.timeout, openedAt: now, ip }], dep, depPort };
    if (pl.kind === "refused")
      return { spots: [{ share: 1, failed: "refused", openedAt: now, ip }], dep, depPort };
    if (pl.kind !== "pods")
      return { spots: [{ share: 1, failed: "timeout", openedAt: now, ip }], dep, depPort };
    pods = pl.pods;
  }
  if (pooled) {
    const pick = pickFor(key, pods);
    if (open(ctx, pod, pick).kind === "open") keepConn(ctx, key, pick);
    return {
      spots: [{ share: 1, landing: pick, openedAt: now, ip: ip || (pick.pod.status?.podIP ?? "") }],
      dep,
      depPort,
    };
  }
  return {
    spots: pods.map((l) => ({
      share: 1 / pods.length,
      landing: l,
      openedAt: now,
      ip: ip || (l.pod.status?.podIP ?? ""),
    })),
    dep,
    depPort,
  };
}

/** What a call that reaches one spot does: outcome shares, its latency and the service there. */
interface SpotView {
  p: Record<CallOutcome, number>;
  latencyMs: number;
  /** The service that answers (topology key), if the call gets through to it. */
  lands?: string;
  /** The timeouts are of the read phase (an established connection whose packets vanish). */
  readPhase: boolean;
  /** The share of calls the store there refuses for want of the password (within p.error). */
  denied?: number;
  refusal?: Refusal;
  oom?: number;
}

function spotView(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  pod: Pod,
  e: Edge,
  s: Spot,
  req: { method: string; path?: string },
  dep: string,
): SpotView {
  const p = zero();
  if (s.failed || !s.landing) {
    p[s.failed ?? "refused"] = 1;
    return { p, latencyMs: 1, readPhase: false };
  }
  const v = open(ctx, pod, s.landing, { established: s.established });
  if (v.kind === "timeout") {
    p.timeout = 1;
    return { p, latencyMs: 1, readPhase: !!s.established };
  }
  if (v.kind === "refused") {
    p.refused = 1;
    return { p, latencyMs: 1, readPhase: false };
  }
  const callee = services.get(e.to)?.model;
  const expected = callee?.protocol ?? "http";
  const there = v.listener.model;
  const rtt = POD_RTT_MS + v.go.delayMs + v.back.delayMs;
  // another protocol on that port: the server drops what it cannot parse
  if (v.listener.protocol !== expected) {
    p.reset = 1;
    return { p, latencyMs: 2 * rtt, readPhase: false };
  }
  // another application on that port: it does not know the call (gRPC Unimplemented, HTTP 404);
  // another MySQL server has no account for the client's user (Access denied: store-auth.ts)
  if (!there || there.key !== e.to) {
    p.error = 1;
    const denied = there && e.store === "mysql" ? 1 : 0;
    return { p, latencyMs: 2 * rtt, lands: there?.key, readPhase: false, denied };
  }
  let httpDelay = 0;
  if (expected === "http") {
    const h = httpFaults(ctx, s.landing, { method: req.method, path: req.path, openedAt: s.openedAt });
    if (h.abort) {
      p.reset = 1;
      return {
        p,
        latencyMs: 2 * rtt + h.delayMs,
        lands: h.abort === "response" ? there.key : undefined,
        readPhase: false,
      };
    }
    httpDelay = h.delayMs;
    if (h.code !== undefined && h.code >= 500) p.error = 1;
  }
  const st = services.get(there.key);
  const wait = timeoutMs(m, e, ctx, pod);
  const rt = s.established ? 1 : e.store || e.dial.conn === "pooled" ? 1 : 2;
  const dns = rt > 1 ? egress(ctx.faults, pod).delayMs : 0;
  const base = (st?.latencyMs ?? 1) + rt * rtt + dns + httpDelay;
  const loss = 1 - (1 - v.go.loss) * (1 - v.back.loss);
  const pLoss = 1 - (1 - loss) ** rt;
  const rto = rt > 1 ? 1000 : 200;
  let timeout: number;
  let latency = base;
  if (base > wait) timeout = 1;
  else if (base + rto > wait) timeout = pLoss;
  else {
    timeout = 0;
    latency = base + pLoss * rto;
  }
  p.timeout = timeout;
  const answered = 1 - timeout;
  // the store pod this call lands on checks the password the caller's configuration for `dep` sends
  const refusal = e.store ? storeRefusal(ctx, pod, m, e, s.landing.pod, there, dep) : undefined;
  const denied = refusal ? answered : 0;
  // a store over its maxmemory refuses the caller's writes (store-clients.ts)
  const oom = !refusal && e.store && storeFull(ctx, e, s.landing.pod, there) ? answered * writeShare(m) : 0;
  p.error = Math.max(p.error * answered, answered * (st?.failRate ?? 0), denied);
  p.ok = Math.max(0, answered - p.error);
  return { p, latencyMs: latency, lands: there.key, readPhase: true, denied, refusal, oom };
}

/** What calls along the edge from this pod do, on average. */
export function edgeView(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  pod: Pod,
  e: Edge,
  req: { method: string; path?: string } = { method: "GET", path: e.dial.path },
  where?: Spots,
): EdgeView {
  const wait = timeoutMs(m, e, ctx, pod);
  const connectWait = connectTimeoutMs(m, e, ctx, pod);
  const sp = where ?? spotsOf(ctx, services, m, pod, e);
  const p = zero();
  const lands = new Map<string, number>();
  const view: EdgeView = {
    p,
    latencyMs: 1,
    expectedMs: 0,
    timeoutMs: wait,
    connectTimeoutMs: connectWait,
    timeoutCostMs: connectWait,
    lands,
    denied: 0,
    oom: 0,
    dep: sp.dep,
    depPort: sp.depPort,
    depIp: sp.spots[0]?.ip || sp.dep,
    dnsAgain: sp.spots.some((s) => s.dnsAgain),
  };
  if (sp.none) {
    p.ok = 1;
    view.none = true;
    return view;
  }
  let latency = 0;
  let answeredShare = 0;
  let expected = 0;
  let timeoutCost = 0;
  for (const s of sp.spots) {
    const v = spotView(ctx, services, m, pod, e, s, req, sp.dep);
    for (const k of Object.keys(p) as CallOutcome[]) p[k] += s.share * v.p[k];
    view.denied += s.share * (v.denied ?? 0);
    view.oom += s.share * (v.oom ?? 0);
    view.refusal ??= v.refusal;
    const answered = v.p.ok + v.p.error + v.p.reset;
    const arrived = answered + (v.readPhase ? v.p.timeout : 0);
    if (v.lands) lands.set(v.lands, (lands.get(v.lands) ?? 0) + s.share * arrived);
    latency += s.share * answered * v.latencyMs;
    answeredShare += s.share * answered;
    const timedOut = v.readPhase ? wait : connectWait;
    timeoutCost += s.share * v.p.timeout * timedOut;
    expected +=
      s.share *
      (v.p.timeout * timedOut + (v.p.refused + v.p.dns) * 1 + (v.p.ok + v.p.error + v.p.reset) * v.latencyMs);
  }
  view.latencyMs = answeredShare > 0 ? latency / answeredShare : 1;
  view.expectedMs = expected;
  if (p.timeout > 0) view.timeoutCostMs = timeoutCost / p.timeout;
  return view;
}

/** The outcome of one call drawn from the view (rnd in [0, 1)). */
export function drawOutcome(v: EdgeView, rnd: () => number): CallOutcome {
  const x = rnd();
  let acc = 0;
  for (const k of ["refused", "dns", "timeout", "reset", "error"] as const) {
    acc += v.p[k];
    if (x < acc) return k;
  }
  return "ok";
}

/** The time a call with that outcome takes. */
export function outcomeMs(v: EdgeView, o: CallOutcome): number {
  if (o === "timeout") return v.timeoutCostMs;
  if (o === "refused" || o === "dns") return 1;
  return v.latencyMs;
}
