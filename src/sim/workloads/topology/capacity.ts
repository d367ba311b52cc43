// How many requests per second one pod of a service can serve, and how long a request waits for
// a worker before it is served. A pod serves at most what its CPU allows (the CPU limit, or the
// node's cores without one, less its idle work, divided by the CPU each request costs) and at
// most what its worker pool allows (Tomcat's server.tomcat.threads.max: each thread is held for
// the whole request, its calls included, so a slow callee fills the pool: threads / latency).
// Below half load no request waits (the steady state is far below it and stays as it was); from
// half load on the wait follows M/M/1's rho / (1 - rho) of the time per request, faded in as
// (2 rho - 1), up to 95 %; at and past capacity the queue (queues.ts) holds what waits.
// A stressor's CPU is not taken off the capacity: own-time.ts already stretches every request
// by the demand over the limit (the threads share the quota).

import { milliCpu } from "../../../util/quantity.js";
import { R } from "../../api/resources.js";
import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Node, Pod } from "../../core/objects.js";
import { settingOf } from "./settings.js";

/** The utilisation past which the wait is the queue's, not the curve's. */
export const CURVE_MAX_RHO = 0.95;

/** Requests per second one pod can serve, `latencyMs` being its time per request with its calls. */
export function podCapacity(ctx: SimContext, m: ServiceModel, pod: Pod, latencyMs: number): number {
  let cap = Number.POSITIVE_INFINITY;
  if (m.runtime.cpuPerRps > 0) {
    const spec = (pod.spec?.containers ?? []).find((c) => c.name === m.container);
    let cpu = milliCpu(spec?.resources?.limits?.cpu);
    if (!(cpu > 0)) {
      const node = pod.spec?.nodeName
        ? (ctx.store.get(R("Node"), undefined, pod.spec.nodeName) as Node)
        : undefined;
      cpu = milliCpu(node?.status?.allocatable?.cpu ?? node?.status?.capacity?.cpu) || 2000;
    }
    cap = Math.max(0, cpu - m.runtime.cpuIdle) / m.runtime.cpuPerRps;
  }
  const threads = settingOf(ctx, pod, m, "threads");
  if (threads !== undefined) cap = Math.min(cap, (threads * 1000) / Math.max(1, latencyMs));
  return cap;
}

/** The wait for a worker below capacity (ms), for `serviceMs` per request at utilisation `rho`. */
export function curveWaitMs(serviceMs: number, rho: number): number {
  if (rho <= 0.5) return 0;
  const r = Math.min(rho, CURVE_MAX_RHO);
  return serviceMs * (2 * r - 1) * (r / (1 - r));
}
