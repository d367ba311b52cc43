// What the agent may do, as RBAC rules: an on-call engineer of the case's namespace. Read
// everything in it; change pods, workloads (and their scale), services, configmaps and network
// policies (a policy that drops a service's callers is the namespace's own configuration), and its
// LimitRanges and ResourceQuotas (admission limits that refuse its pods), and its
// HorizontalPodAutoscalers (the bounds its workloads scale within); exec, logs and eviction;
// read nodes and metrics. Chaos Mesh's kinds it may read in its namespace, as a namespace's reader
// reads what a cluster serves, and never change: the harness's chaos lives in Chaos Mesh's own
// namespace, out of its reach, as the fault's mechanism on a real incident is. Groups are listed,
// never "*", so that a CRD's group is never granted by accident.

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];

/** The API groups a namespace's workloads live in (and only those). */
const READABLE_GROUPS = [
  "",
  "apps",
  "batch",
  "autoscaling",
  "policy",
  "networking.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "metrics.k8s.io",
  "chaos-mesh.org",
];

const WORKLOADS = ["deployments", "statefulsets", "daemonsets", "replicasets"];

export function agentRules(): PolicyRule[] {
  return [
    { apiGroups: READABLE_GROUPS, resources: ["*"], verbs: READ },
    { apiGroups: [""], resources: ["pods", "services", "configmaps"], verbs: WRITE },
    { apiGroups: ["apps"], resources: WORKLOADS, verbs: WRITE },
    { apiGroups: ["apps"], resources: WORKLOADS.map((w) => `${w}/scale`), verbs: ["get", "update", "patch"] },
    { apiGroups: ["batch"], resources: ["jobs", "cronjobs"], verbs: WRITE },
    { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: WRITE },
    // the namespace's admission limits: a LimitRange or ResourceQuota that refuses its pods is the case's
    { apiGroups: [""], resources: ["limitranges", "resourcequotas"], verbs: WRITE },
    // the namespace's autoscalers: an HPA whose maximum holds a service under its load is the case's
    { apiGroups: ["autoscaling"], resources: ["horizontalpodautoscalers"], verbs: WRITE },
    // a WebSocket exec is a GET that Kubernetes ≥ 1.30 authorises as "create" too
    { apiGroups: [""], resources: ["pods/exec"], verbs: ["get", "create"] },
    { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods/eviction"], verbs: ["create"] },
  ];
}

/** Cluster-scoped, read-only: nodes and their metrics (`kubectl top node`, `describe node`). */
export function agentClusterRules(): PolicyRule[] {
  return [
    { apiGroups: [""], resources: ["nodes"], verbs: READ },
    { apiGroups: ["metrics.k8s.io"], resources: ["nodes"], verbs: READ },
  ];
}
