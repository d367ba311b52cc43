// One request to a page of an entry service, as its handler serves it: the calls of the route that
// matches (topology `routes`), in the handler's order, each drawn from the traffic model from
// this pod (its environment's address, the cluster's resolution, the callee's own health). The
// first callee that fails ends the request (Online-Boutique's frontend: renderHTTPError and a
// 500; hello-service: 503), except soft callees whose failure the handler ignores (the frontend's
// chooseAd logs a warning and shows no ad). A proxy route (nginx's /api/, the gateway's lb://
// routes) passes the request on and answers what its upstream answers, or its own error when the
// upstream cannot be reached (nginx: 502 refused or reset, 504 timed out).

import { type ServiceModel, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { drawOutcome, edgeView, outcomeMs } from "./calls.js";
import { listeners } from "./listeners.js";
import { writeRefusedVia } from "./store-writes.js";
import { trafficOf } from "./traffic.js";

/** What the upstream answered, for a proxy to pass on. */
export interface Upstream {
  status: number;
  body: string;
  type: string;
}

export type RouteResult =
  | { kind: "ok"; ms: number; status: number }
  /** A callee failed: the service's own error page (`timeout`: a proxy's upstream timed out). */
  | { kind: "failed"; ms: number; timeout: boolean }
  | { kind: "upstream"; ms: number; answer: Upstream };

/** How deep proxies may chain (nginx -> gateway -> service). */
const MAX_DEPTH = 4;

/** The route of `method path`, served from this pod, or undefined when no route matches. */
export function routeResult(
  ctx: SimContext,
  pod: Pod,
  m: ServiceModel,
  method: string,
  path: string,
  rnd: () => number,
  serveUpstream: (pod: Pod, m: ServiceModel, depth: number) => Upstream & { serverMs: number },
  depth = 0,
): RouteResult | undefined {
  const route = m.routes.find((r) => r.methods.includes(method) && r.path.test(path));
  if (!route) return undefined;
  const st = trafficOf(ctx).state(pod.metadata.namespace ?? "").services;
  // its own time and the wait for a worker (capacity.ts)
  const self = st.get(m.key);
  let ms = self ? self.ownMs + self.queueMs : m.runtime.cpuPerRps + 1;
  const edges = systemOf(m).edges.get(m.key) ?? [];
  const order: [string, boolean][] = [...route.calls.map((c): [string, boolean] => [c, false])];
  for (const c of route.soft) order.push([c, true]);
  for (const [callee, soft] of order) {
    const e = edges.find((x) => x.to === callee && !x.store);
    if (!e) continue;
    const req = route.proxy ? { method, path } : { method: "GET", path: e.dial.path };
    const v = edgeView(ctx, st, m, pod, e, req);
    if (v.none) continue;
    let o = drawOutcome(v, rnd);
    // the callee's store refuses the write this page makes through it (store-writes.ts)
    if (o === "ok" && writeRefusedVia(ctx, st, m, callee, method, path, rnd)) o = "error";
    const there = st.get(callee);
    if (route.proxy && (o === "ok" || o === "error") && there && depth < MAX_DEPTH) {
      const serving = there.serving.filter((p) =>
        listeners(ctx, p, ctx.clock.now()).some((l) => l.port === there.model.port),
      );
      if (serving.length) {
        const up = serveUpstream(serving[Math.floor(rnd() * serving.length)], there.model, depth + 1);
        // the network part of the call, and the upstream's own time for this request
        ms += Math.max(0, v.latencyMs - there.latencyMs) + up.serverMs;
        return { kind: "upstream", ms, answer: up };
      }
    }
    ms += outcomeMs(v, o);
    if (o !== "ok" && !soft) return { kind: "failed", ms, timeout: o === "timeout" };
  }
  return { kind: "ok", ms, status: route.status };
}
