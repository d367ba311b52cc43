// The time one pod of a service spends on a request itself (the expert tier's cpu-throttle): its CPU
// per request under the CFS bandwidth controller the kubelet configures from the CPU limit, plus
// a stalled disk. The kubelet writes cpu.max as `<limit x 100000 / 1000> 100000` (the default
// cfs_period_us of 100 ms, pkg/kubelet/cm/helpers_linux.go MilliCPUToQuota), so a container may
// run limit/1000 x 100 ms of CPU per 100 ms period across all its threads; once that quota is
// spent its threads wait for the next period (kernel/sched/fair.c throttle_cfs_rq). A request
// that needs more CPU than the quota its container has left in a period therefore spans one or
// more period boundaries and waits out the rest of each: a 3 ms Python handler at a 20m limit
// (2 ms per period) takes about 100 ms more, whatever the average usage. What a request gets
// per period is the quota less what the rest of the load uses on average, and at least half of
// it (the threads share the CPU time); a container whose demand passes its limit also queues
// (every request stretched by demand/limit, as before). Wall time only grows as the limit falls.

import { milliCpu } from "../../../util/quantity.js";
import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";
import { PERIOD_US, periodsWaited, quotaShareMs } from "../../userland/kernel/cgroup.js";
import { ioFaultsOnMounts, stressOf } from "./impairments.js";

/** cpu.cfs_period_us as the kubelet leaves it (100 ms). */
export const CFS_PERIOD_MS = PERIOD_US / 1000;

/** Time not spent on the CPU per request (framing, syscalls, the socket): not throttled. */
const OFF_CPU_MS = 1;

/**
 * Wall time of `cpuMs` of CPU work in a container limited to `limit` millicores whose whole
 * demand is `demand` millicores: the work runs on what the period's quota has left, waits for
 * the next period when that is spent, and queues when the demand passes the limit.
 */
export function throttledMs(cpuMs: number, limit: number, demand: number): number {
  if (limit <= 0 || cpuMs <= 0) return cpuMs;
  const periods = periodsWaited(cpuMs, limit, demand);
  const wall = periods ? periods * CFS_PERIOD_MS + (cpuMs - periods * quotaShareMs(limit, demand)) : cpuMs;
  // past the limit the work queues: each request waits for the ones before it
  return wall * Math.max(1, demand / limit);
}

/** The service's main container in the pod. */
const mainSpec = (pod: Pod, m: ServiceModel): Container | undefined =>
  (pod.spec?.containers ?? []).find((c) => c.name === m.container);

/** A pod's CPU demand in millicores at `rps` requests per second (its idle work, a stressor). */
export function demandMilli(ctx: SimContext, m: ServiceModel, pod: Pod, rps: number): number {
  return m.runtime.cpuIdle + m.runtime.cpuPerRps * rps + stressOf(ctx.faults, pod, m.container).cpuMilli;
}

/** The time one pod spends on a request itself at `rps` per pod: throttled CPU and a stalled disk. */
export function ownMs(ctx: SimContext, m: ServiceModel, pod: Pod, rps: number): number {
  const spec = mainSpec(pod, m);
  const limit = milliCpu(spec?.resources?.limits?.cpu);
  let stall = 0;
  if (m.protocol === "mysql" && spec)
    for (const f of ioFaultsOnMounts(ctx.faults, pod, spec))
      if (f.action === "latency") stall += ((f.percent ?? 100) / 100) * (f.delayMs ?? 0);
  const cpu = throttledMs(m.runtime.cpuPerRps, limit, demandMilli(ctx, m, pod, rps));
  return cpu + OFF_CPU_MS + stall;
}
