// Whether a pod fits a node, as the scheduler's filter plugins decide it (NodeUnschedulable,
// NodeAffinity with nodeSelector, TaintToleration, NodeResourcesFit): requests against
// allocatable minus the requests of the non-terminated pods already bound there.

import { bytes, milliCpu } from "../../util/quantity.js";
import type {
  Container,
  Node,
  NodeSelectorTerm,
  Pod,
  PodSpec,
  SelectorRequirement,
  Taint,
  Toleration,
} from "../objects.js";

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

function matchExpression(e: SelectorRequirement, labels: Record<string, string>): boolean {
  const v = labels[e.key];
  switch (e.operator) {
    case "In":
      return v !== undefined && (e.values ?? []).includes(v);
    case "NotIn":
      return v === undefined || !(e.values ?? []).includes(v);
    case "Exists":
      return v !== undefined;
    case "DoesNotExist":
      return v === undefined;
    case "Gt":
      return v !== undefined && Number(v) > Number(e.values?.[0]);
    case "Lt":
      return v !== undefined && Number(v) < Number(e.values?.[0]);
    default:
      return false;
  }
}

function selectorFits(spec: PodSpec, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const terms: NodeSelectorTerm[] | undefined =
    spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms?.length) return true;
  // matchFields may only name metadata.name (how daemon pods are pinned to their node)
  const fields = { "metadata.name": node.metadata.name ?? "" };
  return terms.some(
    (t) =>
      (t.matchExpressions ?? []).every((e: SelectorRequirement) => matchExpression(e, labels)) &&
      (t.matchFields ?? []).every((e: SelectorRequirement) => matchExpression(e, fields)) &&
      (t.matchExpressions?.length || t.matchFields?.length),
  );
}

function tolerates(tolerations: Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === "Exists") return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
  });
}

/** Why the pod does not fit the node (empty when it fits). */
export function misfits(pod: Pod, node: Node, bound: Pod[]): Misfit[] {
  const out: Misfit[] = [];
  if (
    node.spec?.unschedulable &&
    !tolerates(pod.spec.tolerations ?? [], { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" })
  )
    return [{ kind: "unschedulable" }];
  if (!selectorFits(pod.spec, node)) return [{ kind: "selector" }];
  const taint = (node.spec?.taints ?? []).find(
    (t: Taint) =>
      (t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerates(pod.spec.tolerations ?? [], t),
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
