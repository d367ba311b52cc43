// /sys/fs/cgroup inside a container. k3s runs containerd with cgroup v2; its CRI plugin gives every
// unprivileged container a private cgroup namespace, so the mount's root is the container's own
// cgroup (and /proc/<pid>/cgroup says "0::/"). The limits are the kubelet's: cpu.max from the CPU
// limit (MilliCPUToQuota: quota = milli x 100000 / 1000, at least 1000, period 100000; "max 100000"
// without a limit), cpu.weight from the request (shares converted as runc does), memory.max the
// memory limit ("max" without), memory.oom.group 1 (the kubelet's default on cgroup v2 since 1.28:
// an OOM kill takes the whole container, which then restarts with a fresh cgroup). Usage is the
// metrics' (metrics/usage.ts), so cpu.stat's usage_usec grows at the rate `kubectl top` shows.
//
// Throttling follows the CFS bandwidth controller (Documentation/scheduler/sched-bwc.rst): the
// period timer runs while the group has work, nr_periods counts its periods, a period in which the
// quota runs out counts in nr_throttled, and throttled_usec adds, for every CPU the group's
// threads wait on, the rest of that period. Demand above the limit (a stressor, a starved config)
// throttles every period; an idle group's timer stops, so a light workload counts few periods.
// Below the limit, a request whose CPU passes its share of a period's quota is throttled at each
// period boundary it waits at (the topology's requests: Usage.burstMs, workloads/topology/own-time.ts).

import { bytes, milliCpu } from "../../../util/quantity.js";
import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Node, Pod } from "../../core/objects.js";
import { containerRef, containerUsage } from "../../metrics/usage.js";
import type { PseudoFs } from "../fs.js";
import type { Meters } from "./meters.js";
import type { TaskView } from "./view.js";

export const PERIOD_US = 100_000;

/** cpu.max: the kubelet's quota for a CPU limit in millicores. */
export function cpuMax(limitMilli: number): string {
  if (!(limitMilli > 0)) return `max ${PERIOD_US}`;
  return `${Math.max(1000, Math.floor((limitMilli * PERIOD_US) / 1000))} ${PERIOD_US}`;
}

/** The least share of a period's quota one request gets while the rest of the load runs too. */
const MIN_SHARE = 0.5;

/** CPU ms one piece of work gets per period at `limit` millicores while the container's demand is `demand`. */
export function quotaShareMs(limit: number, demand: number): number {
  return ((limit * PERIOD_US) / 1e6) * Math.max(MIN_SHARE, 1 - demand / limit);
}

/**
 * The period boundaries work of `cpuMs` waits at under the quota: none when it fits in what the
 * rest of the load leaves of a period (at least half the quota: the threads share the CPU time).
 */
export function periodsWaited(cpuMs: number, limit: number, demand: number): number {
  if (!(limit > 0) || !(cpuMs > 0)) return 0;
  return Math.max(0, Math.ceil(cpuMs / quotaShareMs(limit, demand) - 1e-9) - 1);
}

/**
 * nr_periods and nr_throttled from the integrals of their rates. A period ran out of quota or did
 * not: the ones that did not are counted whole, so while every period is throttled the two counts
 * step together (the integrals' fractions differ once the group has run below its limit).
 */
export function wholePeriods(periods: number, throttled: number): [number, number] {
  const all = Math.floor(periods);
  const unthrottled = Math.floor(Math.max(0, periods - throttled) + 1e-6);
  return [all, Math.min(all, Math.max(0, all - unthrottled))];
}

/** cpu.weight: the request as cgroup v1 shares (kubelet), converted to a v2 weight (runc). */
export function cpuWeight(requestMilli: number): number {
  const shares = requestMilli > 0 ? Math.max(2, Math.floor((requestMilli * 1024) / 1000)) : 2;
  return 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

export function nodeCpus(ctx: SimContext, pod: Pod): number {
  const node = ctx.registry.tryGet(R("Node"), undefined, pod.spec?.nodeName ?? "") as Node | undefined;
  return Math.max(1, Math.round(milliCpu(node?.status?.capacity?.cpu) / 1000) || 4);
}

export const cpuMeterKey = (pod: Pod, container: string, restartCount: number) =>
  `${pod.metadata.namespace}/${pod.metadata.uid}/cpu/${container}/${restartCount}`;

/**
 * The rates (per cluster ms) of usage_usec, nr_periods, nr_throttled and throttled_usec of a
 * container instance now; zero once that instance is gone.
 */
export function cpuRates(
  ctx: SimContext,
  ns: string,
  podName: string,
  container: string,
  restartCount: number,
): number[] {
  const pod = ctx.store.get(R("Pod"), ns, podName) as Pod | undefined;
  const ref = pod && containerRef(pod, container, ctx.clock);
  if (!pod || !ref || ref.restartCount !== restartCount) return [0, 0, 0, 0];
  const now = ctx.clock.now();
  const u = ctx.behavior.usage(ref, now);
  const demand = Math.max(0, u.cpuMilli);
  const used = containerUsage(ctx, ref, now).cpuMilli;
  const limit = milliCpu(ref.container.resources?.limits?.cpu);
  if (!(limit > 0)) return [used, 0, 0, 0];
  // the share of 100 ms periods in which the group runs at all (its timer goes idle otherwise)
  const active = demand > 0 ? 1 - Math.exp(-demand / 20) : 0;
  const periods = active / 100;
  if (demand <= limit) {
    // a request needing more than its share of a period's quota waits at period boundaries
    const waits = (periodsWaited(u.burstMs ?? 0, limit, demand) * (u.burstsPerSec ?? 0)) / 1000;
    const throttled = Math.min(periods, waits);
    return [used, periods, throttled, throttled * PERIOD_US * (1 - limit / 1000)];
  }
  const cpus = nodeCpus(ctx, pod);
  const runnable = Math.min(demand, cpus * 1000);
  const waiting = Math.min(Math.ceil(demand / 1000), cpus);
  const perPeriod = waiting * (1 - limit / runnable) * PERIOD_US;
  return [used, periods, periods, perPeriod * periods];
}

interface CgroupInput {
  ctx: SimContext;
  meters: Meters;
  pod: Pod;
  container: Container;
  restartCount: number;
  tasks: () => TaskView[];
}

const flat = (rows: [string, number | string][]) => rows.map(([k, v]) => `${k} ${v}\n`).join("");

/** The container's cgroup, mounted at /sys/fs/cgroup. */
export function cgroupFs(c: CgroupInput): PseudoFs {
  const { ctx, pod, container, restartCount } = c;
  const limitMilli = milliCpu(container.resources?.limits?.cpu);
  const memLimit = bytes(container.resources?.limits?.memory);
  const ref = () => containerRef(pod, container.name, ctx.clock);
  const cpu = () => {
    const r = ref();
    const start = r?.startedAt ?? ctx.clock.now();
    const rate = () =>
      cpuRates(ctx, pod.metadata.namespace ?? "", pod.metadata.name ?? "", container.name, restartCount);
    return c.meters.read(cpuMeterKey(pod, container.name, restartCount), ctx.clock.now(), start, rate);
  };
  const memory = () => {
    const r = ref();
    if (!r) return { current: 0, over: false };
    const now = ctx.clock.now();
    const want = containerUsage(ctx, r, now).memoryBytes;
    const current = Math.ceil((memLimit > 0 ? Math.min(want, memLimit) : want) / 4096) * 4096;
    return { current, over: memLimit > 0 && want > memLimit };
  };
  const own = () => c.tasks().filter((t) => t.cgroup === "/");
  const files: Record<string, () => string> = {
    "cgroup.controllers": () => "cpuset cpu io memory hugetlb pids rdma misc\n",
    "cgroup.events": () => `populated ${own().length ? 1 : 0}\nfrozen 0\n`,
    "cgroup.procs": () =>
      own()
        .map((t) => `${t.pid}\n`)
        .join(""),
    "cgroup.subtree_control": () => "\n",
    "cgroup.type": () => "domain\n",
    "cpu.max": () => `${cpuMax(limitMilli)}\n`,
    "cpu.stat": () => {
      const [rawUsage, rawPeriods, rawThrottled, rawThrottledUs] = cpu();
      const [usage, throttledUs] = [rawUsage, rawThrottledUs].map(Math.floor);
      const [periods, whole] = wholePeriods(rawPeriods, rawThrottled);
      // as in the kernel, the count never goes back between two reads
      const throttled = c.meters.atLeast(
        `${cpuMeterKey(pod, container.name, restartCount)}/nr_throttled`,
        whole,
      );
      const user = Math.floor(usage * 0.85);
      const rows: [string, number][] = [
        ["usage_usec", usage],
        ["user_usec", user],
        ["system_usec", usage - user],
      ];
      // the bandwidth stats, present once the cpu controller is enabled (always in a pod)
      rows.push(["nr_periods", periods], ["nr_throttled", throttled], ["throttled_usec", throttledUs]);
      rows.push(["nr_bursts", 0], ["burst_usec", 0]);
      return flat(rows);
    },
    "cpu.weight": () =>
      `${cpuWeight(milliCpu(container.resources?.requests?.cpu ?? container.resources?.limits?.cpu))}\n`,
    "memory.current": () => `${memory().current}\n`,
    "memory.events": () => {
      // a demand over the limit is the OOM kill the kubelet is about to report
      const n = memory().over ? 1 : 0;
      return flat([
        ["low", 0],
        ["high", 0],
        ["max", n],
        ["oom", n],
        ["oom_kill", n],
        ["oom_group_kill", n],
      ]);
    },
    "memory.high": () => "max\n",
    "memory.low": () => "0\n",
    "memory.max": () => `${memLimit > 0 ? memLimit : "max"}\n`,
    "memory.min": () => "0\n",
    "memory.oom.group": () => "1\n",
    "pids.current": () => `${own().length}\n`,
    "pids.max": () => "max\n",
  };
  return {
    root: "/sys/fs/cgroup",
    lookup(rel) {
      if (rel === "") return { kind: "dir", entries: () => Object.keys(files) };
      const f = files[rel];
      return f ? { kind: "file", read: f } : undefined;
    },
  };
}
