// Whether a pod fits a node, as the scheduler's filter plugins decide it (NodeUnschedulable,
// NodeAffinity with nodeSelector, TaintToleration, NodeResourcesFit): requests against
// allocatable minus the requests of the non-terminated pods already bound there.

import { bytes, milliCpu } from "../../util/quantity.js";
import { requiredAffinityFits, tolerated } from "../core/node-match.js";
import type { Container, Node, Pod, PodSpec, Taint } from "../core/objects.js";

export type Misfit =
  | { kind: "cpu" | "memory" | "pods" | "selector" | "unschedulable" }
  | { kind: "taint"; taint: string };

export interface Requests {
  cpu: number; // millicores
  memory: number; // bytes
}

/** Effective requests: the larger of the app containers' sum and any single init container, plus overhead. */
export function podRequests(spec: PodSpec | undefined): Requests {
  const sum = (cs: Container[]) =>
    cs.reduce(
      (a, c) => ({
        cpu: a.cpu + milliCpu(c.resources?.requests?.cpu),
        memory: a.memory + bytes(c.resources?.requests?.memory),
      }),
      { cpu: 0, memory: 0 },
    );
  const apps = sum(spec?.containers ?? []);
  for (const c of spec?.initContainers ?? []) {
    apps.cpu = Math.max(apps.cpu, milliCpu(c.resources?.requests?.cpu));
    apps.memory = Math.max(apps.memory, bytes(c.resources?.requests?.memory));
  }
  return {
    cpu: apps.cpu + milliCpu(spec?.overhead?.cpu),
    memory: apps.memory + bytes(spec?.overhead?.memory),
  };
}

export const isTerminated = (p: Pod) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed";

/** Why the pod does not fit the node (empty when it fits). */
export function misfits(pod: Pod, node: Node, bound: Pod[]): Misfit[] {
  const out: Misfit[] = [];
  if (
    node.spec?.unschedulable &&
    !tolerated(pod.spec.tolerations, { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" })
  )
    return [{ kind: "unschedulable" }];
  if (!requiredAffinityFits(pod.spec, node)) return [{ kind: "selector" }];
  const taint = (node.spec?.taints ?? []).find(
    (t: Taint) =>
      (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerated(pod.spec.tolerations, t),
  );
  if (taint) return [{ kind: "taint", taint: `{${taint.key}: ${taint.value ?? ""}}` }];
  const alloc = node.status?.allocatable ?? {};
  const used = { cpu: 0, memory: 0, pods: 0 };
  for (const p of bound) {
    const r = podRequests(p.spec);
    used.cpu += r.cpu;
    used.memory += r.memory;
    used.pods++;
  }
  const want = podRequests(pod.spec);
  if (used.pods + 1 > Number(alloc.pods ?? 110)) out.push({ kind: "pods" });
  if (want.cpu > 0 && used.cpu + want.cpu > milliCpu(alloc.cpu)) out.push({ kind: "cpu" });
  if (want.memory > 0 && used.memory + want.memory > bytes(alloc.memory)) out.push({ kind: "memory" });
  return out;
}

/** Least-allocated score: the node with the most room left after placing the pod wins. */
export function score(pod: Pod, node: Node, bound: Pod[]): number {
  const alloc = node.status?.allocatable ?? {};
  const want = podRequests(pod.spec);
  let cpu = want.cpu;
  let mem = want.memory;
  for (const p of bound) {
    const r = podRequests(p.spec);
    cpu += r.cpu;
    mem += r.memory;
  }
  return (1 - cpu / Math.max(1, milliCpu(alloc.cpu)) + (1 - mem / Math.max(1, bytes(alloc.memory)))) / 2;
}
