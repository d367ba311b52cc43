// What the agent's identity may do, in a model's words: the prompts of both methods and an
// external agent's input say it, so a model does not spend its probes finding the limits
// (the README's "What a model can do", from the rules in rules.ts).
import type { AgentAccess } from "./agent.js";

export function accessText(access: AgentAccess, namespace: string): string {
  if (access === "cluster-admin")
    return `You act with cluster-admin rights: you may read and change anything in the cluster, but change only the namespace ${namespace}.`;
  return [
    `You act as a ServiceAccount of the namespace ${namespace}, which RBAC confines to it.`,
    `In ${namespace} you can read everything, and change pods, Deployments, StatefulSets, DaemonSets and ReplicaSets (and their scale), Jobs, CronJobs, Services, ConfigMaps, NetworkPolicies, LimitRanges, ResourceQuotas and HorizontalPodAutoscalers; exec into pods, read their logs and evict them.`,
    "Outside it you can read nodes and node metrics, nothing else: other namespaces and cluster-scoped objects answer 403 Forbidden.",
  ].join(" ");
}
