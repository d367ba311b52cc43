// What containers, pods and nodes use now, as the kernel would account it: the workload's demand
// from ctx.behavior with CPU throttled at the container's CPU limit (the CFS quota), memory as
// the working set reported. Shared by the metrics API and by exec's /proc files.

import { bytes, milliCpu } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { ContainerRef, Usage } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import { type Clock, parseStamp } from "../core/clock.js";
import type { Container, ContainerStatus, Node, Pod } from "../core/objects.js";
import type { KObject } from "../core/types.js";

/** What the node's own processes use (k3s server, containerd, kubelet, the OS): about k3s idle. */
export const SYSTEM_OVERHEAD: Usage = { cpuMilli: 95, memoryBytes: 1100 * 1024 * 1024 };

/** A running container of a pod as the Behavior sees it, from the pod's containerStatuses. */
export function containerRef(pod: KObject, name: string, clock: Clock): ContainerRef | undefined {
  const { spec: podSpec, status } = pod as Pod;
  const spec = (podSpec?.containers ?? []).find((c: Container) => c.name === name);
  const st = (status?.containerStatuses ?? []).find((s: ContainerStatus) => s.name === name);
  const startedAt = parseStamp(clock, st?.state?.running?.startedAt);
  if (!spec || !Number.isFinite(startedAt)) return undefined;
  return { pod, container: spec, startedAt, restartCount: st?.restartCount ?? 0 };
}

/** Refs of all the pod's containers, or undefined unless every one of them is running. */
export function runningRefs(pod: Pod, clock: Clock): ContainerRef[] | undefined {
  if (pod.status?.phase !== "Running") return undefined;
  const refs: ContainerRef[] = [];
  for (const c of pod.spec?.containers ?? []) {
    const ref = containerRef(pod, c.name, clock);
    if (!ref) return undefined;
    refs.push(ref);
  }
  return refs.length ? refs : undefined;
}

export function containerUsage(ctx: SimContext, ref: ContainerRef, now: number): Usage {
  const u = ctx.behavior.usage(ref, now);
  const limit = milliCpu(ref.container.resources?.limits?.cpu);
  // The CFS quota throttles a container at its limit whatever it wants (a stressor wanting 10 cores).
  const cpu = limit > 0 ? Math.min(u.cpuMilli, limit) : u.cpuMilli;
  return { cpuMilli: Math.max(0, cpu), memoryBytes: Math.max(0, u.memoryBytes) };
}

/** Pods bound to a node whose containers all run. */
export function runningPodsOn(ctx: SimContext, nodeName: string): Pod[] {
  return (ctx.registry.list(R("Pod"), undefined) as Pod[]).filter(
    (p) => p.spec?.nodeName === nodeName && runningRefs(p, ctx.clock),
  );
}

export function nodeUsage(ctx: SimContext, node: KObject, now: number): Usage {
  let cpu = SYSTEM_OVERHEAD.cpuMilli;
  let mem = SYSTEM_OVERHEAD.memoryBytes;
  for (const pod of runningPodsOn(ctx, node.metadata.name!)) {
    for (const ref of runningRefs(pod, ctx.clock) ?? []) {
      const u = containerUsage(ctx, ref, now);
      cpu += u.cpuMilli;
      mem += u.memoryBytes;
    }
  }
  const capacity = (node as Node).status?.capacity;
  const capCpu = milliCpu(capacity?.cpu) || Number.POSITIVE_INFINITY;
  const capMem = bytes(capacity?.memory) || Number.POSITIVE_INFINITY;
  return { cpuMilli: Math.min(cpu, capCpu), memoryBytes: Math.min(mem, capMem) };
}
