// Which nodes a DaemonSet runs on, and the pod it puts there: kube's nodeShouldRunDaemonPod
// (nodeSelector, required node affinity, taints against tolerations) and the pod the daemonset
// controller creates (extra tolerations, and a node affinity to that one node for the scheduler).

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { requiredAffinityFits, tolerated } from "../core/node-match.js";
import type { DaemonSet, Node, Pod, PodSpec, Taint, Toleration } from "../core/objects.js";
import { freshName, podFromTemplate } from "./workload-util.js";

type Affinity = NonNullable<PodSpec["affinity"]>;

/** Tolerations kube adds to every daemon pod, so node conditions do not evict or block it. */
const DAEMON_TOLERATIONS: Toleration[] = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

function withDaemonTolerations(tolerations: Toleration[] | undefined): Toleration[] {
  const out = [...(tolerations ?? [])];
  for (const t of DAEMON_TOLERATIONS)
    if (!out.some((x) => x.key === t.key && x.effect === t.effect)) out.push(t);
  return out;
}

/** Whether a pod with this spec fits the node's labels, name and taints. */
export function fitsNode(spec: PodSpec | undefined, node: Node): boolean {
  if (!requiredAffinityFits(spec, node)) return false;
  const tolerations = withDaemonTolerations(spec?.tolerations);
  return (node.spec?.taints ?? []).every(
    (taint: Taint) => taint.effect === "PreferNoSchedule" || tolerated(tolerations, taint),
  );
}

export const nodeShouldRun = (ds: DaemonSet, node: Node) => fitsNode(ds.spec?.template?.spec, node);

/**
 * The node a daemon pod is for. Kube reads spec.nodeName first; both agree whenever the scheduler
 * honours the pod's node affinity, and reading the affinity first keeps a scheduler that does not
 * from making this controller delete and recreate pods forever.
 */
export function targetNode(pod: Pod): string | undefined {
  for (const t of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
    ?.nodeSelectorTerms ?? [])
    for (const f of t.matchFields ?? [])
      if (f.key === "metadata.name" && f.operator === "In" && f.values?.length === 1) return f.values[0];
  return pod.spec?.nodeName || undefined;
}

/** The daemon pod for `node`: pinned there by node affinity, as kube does (the scheduler binds it). */
export function daemonPod(ctx: SimContext, ds: DaemonSet, node: string, hash: string): Pod {
  const prefix = `${ds.metadata.name}-`;
  const pod = podFromTemplate(
    ds,
    ds.spec.template,
    freshName(ctx, R("Pod"), ds.metadata.namespace, prefix),
    prefix,
  );
  pod.metadata.labels = {
    ...pod.metadata.labels,
    "controller-revision-hash": hash,
    "pod-template-generation": String(ds.metadata.generation ?? 1),
  };
  const affinity: Affinity = structuredClone(pod.spec.affinity ?? {});
  affinity.nodeAffinity = {
    ...(affinity.nodeAffinity ?? {}),
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }],
    },
  };
  pod.spec.affinity = affinity;
  pod.spec.tolerations = withDaemonTolerations(pod.spec.tolerations);
  return pod;
}
