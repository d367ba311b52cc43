// One call from a caller pod to a dependency: whether it is refused (no endpoint answers), times
// out (the network or the callee is slower than the caller waits, or packets are lost), comes
// back as an error (the callee itself failed the request), and how long it takes.
//
// Network: a call made over a fresh TCP connection (Python's urllib, nginx's upstreams) costs
// two round trips (handshake, request), plus a DNS lookup through the caller's egress; pooled
// connections (JVM, Go, Node, .NET clients, database drivers) one. A NetworkChaos delay adds its
// latency to every crossing of the impaired side; a lost packet is retransmitted after the
// kernel's RTO (1 s for a handshake, 200 ms on an established connection).

import type { Edge, ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { egress, oneWay } from "./impairments.js";
import type { SvcState } from "./service-state.js";
import { deniedShare } from "./store-auth.js";

export interface EdgeView {
  /** Probabilities per call. */
  refused: number;
  timeout: number;
  error: number;
  /** Of all calls, those a store answers with an error for want of the right password (store-auth.ts). */
  denied: number;
  /** Duration of a call that succeeds. */
  latencyMs: number;
  /** Mean time the caller spends on the call, failures included. */
  expectedMs: number;
  /** How long the caller waits before giving up. */
  timeoutMs: number;
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

export function timeoutMs(m: ServiceModel, e: Edge): number {
  const own = e.store
    ? fromTemplates(m.logs.storeTimeout?.[e.store])
    : fromTemplates(m.logs.dependencyTimeout);
  if (own !== undefined) return own;
  return TIMEOUT_BY_LANG.find(([re]) => re.test(m.lang))?.[1] ?? 3_000;
}

/** Round trips a call costs: a new connection per call, or a pooled one. */
export function roundTrips(m: ServiceModel, e: Edge): number {
  if (e.store) return 1;
  return /^(python|nginx)/.test(m.lang) ? 2 : 1;
}

/** Base RTT between two pods on one node (veth + bridge), ms. */
export const POD_RTT_MS = 0.1;

export function edgeView(
  ctx: SimContext,
  services: Map<string, SvcState>,
  caller: ServiceModel,
  callerPod: Pod | undefined,
  e: Edge,
): EdgeView {
  const wait = timeoutMs(caller, e);
  const c = services.get(e.to);
  const refusedView = {
    refused: 1,
    timeout: 0,
    error: 0,
    denied: 0,
    latencyMs: 1,
    expectedMs: 1,
    timeoutMs: wait,
  };
  if (!c?.endpoints.length || !c.serving.length) return refusedView;
  const refused = 1 - c.serving.length / c.endpoints.length;
  // the network between the caller and the serving pods kube-proxy spreads calls over
  let delay = 0;
  let loss = 0;
  for (const p of c.serving) {
    const go = oneWay(ctx.faults, callerPod, p);
    const back = oneWay(ctx.faults, p, callerPod);
    delay += go.delayMs + back.delayMs;
    loss += 1 - (1 - go.loss) * (1 - back.loss);
  }
  delay /= c.serving.length;
  loss /= c.serving.length;
  const rt = roundTrips(caller, e);
  const dns = rt > 1 ? egress(ctx.faults, callerPod).delayMs : 0;
  const base = c.latencyMs + rt * (POD_RTT_MS + delay) + dns;
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
  timeout *= 1 - refused;
  const answered = Math.max(0, 1 - refused - timeout);
  const denied = answered * deniedShare(ctx, callerPod, caller, e, c.serving, c.model);
  const error = denied + (answered - denied) * c.failRate;
  const okShare = Math.max(0, 1 - refused - timeout - error);
  return {
    refused,
    timeout,
    error,
    denied,
    latencyMs: latency,
    expectedMs: refused * 1 + timeout * wait + (error + okShare) * latency,
    timeoutMs: wait,
  };
}
