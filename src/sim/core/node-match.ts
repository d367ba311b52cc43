// Whether a pod may go to a node, as k8s.io/component-helpers/scheduling/corev1 decides it for
// the scheduler, the DaemonSet controller and taint eviction alike: v1.Toleration.ToleratesTaint,
// and the pod's nodeSelector with its required node affinity (nodeaffinity.RequiredNodeAffinity).

import type { Node, NodeSelectorTerm, PodSpec, SelectorRequirement, Taint, Toleration } from "./objects.js";

/** v1.Toleration.ToleratesTaint. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === "Exists") return true;
  return (t.operator ?? "Equal") === "Equal" && (t.value ?? "") === (taint.value ?? "");
}

/** Whether any of the tolerations tolerates the taint. */
export const tolerated = (tolerations: Toleration[] | undefined, taint: Taint): boolean =>
  (tolerations ?? []).some((t) => toleratesTaint(t, taint));

function requirementHolds(e: SelectorRequirement, v: string | undefined): boolean {
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

/** The pod's nodeSelector and required node affinity against the node's labels and name. */
export function requiredAffinityFits(spec: PodSpec | undefined, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(spec?.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const terms: NodeSelectorTerm[] | undefined =
    spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms?.length) return true;
  // matchFields may only name metadata.name (how daemon pods are pinned to their node); an empty
  // term selects no node
  const fields: Record<string, string> = { "metadata.name": node.metadata.name ?? "" };
  return terms.some(
    (t) =>
      (t.matchExpressions?.length || t.matchFields?.length) &&
      (t.matchExpressions ?? []).every((e) => requirementHolds(e, labels[e.key])) &&
      (t.matchFields ?? []).every((e) => requirementHolds(e, fields[e.key])),
  );
}
