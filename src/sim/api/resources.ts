// The resources the embedded cluster serves: what discovery lists and what the router accepts.
import type { ResourceType } from "../core/types.js";

const RW = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const RO = ["get", "list"];

function rt(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Partial<ResourceType> = {},
): ResourceType {
  return { group, version, resource, kind, singular: kind.toLowerCase(), namespaced, verbs: RW, ...extra };
}

export const RESOURCES: ResourceType[] = [
  rt("", "v1", "namespaces", "Namespace", false, {
    shortNames: ["ns"],
    subresources: ["status", "finalize"],
  }),
  rt("", "v1", "nodes", "Node", false, { shortNames: ["no"], subresources: ["status"] }),
  rt("", "v1", "pods", "Pod", true, {
    shortNames: ["po"],
    categories: ["all"],
    subresources: ["status", "log", "exec", "eviction", "binding"],
  }),
  rt("", "v1", "services", "Service", true, {
    shortNames: ["svc"],
    categories: ["all"],
    subresources: ["status"],
  }),
  rt("", "v1", "endpoints", "Endpoints", true, { shortNames: ["ep"] }),
  rt("", "v1", "events", "Event", true, { shortNames: ["ev"] }),
  rt("", "v1", "configmaps", "ConfigMap", true, { shortNames: ["cm"] }),
  rt("", "v1", "secrets", "Secret", true),
  rt("", "v1", "serviceaccounts", "ServiceAccount", true, { shortNames: ["sa"], subresources: ["token"] }),
  rt("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, {
    shortNames: ["pvc"],
    subresources: ["status"],
  }),
  rt("apps", "v1", "deployments", "Deployment", true, {
    shortNames: ["deploy"],
    categories: ["all"],
    subresources: ["status", "scale"],
  }),
  rt("apps", "v1", "replicasets", "ReplicaSet", true, {
    shortNames: ["rs"],
    categories: ["all"],
    subresources: ["status", "scale"],
  }),
  rt("apps", "v1", "statefulsets", "StatefulSet", true, {
    shortNames: ["sts"],
    categories: ["all"],
    subresources: ["status", "scale"],
  }),
  rt("apps", "v1", "daemonsets", "DaemonSet", true, {
    shortNames: ["ds"],
    categories: ["all"],
    subresources: ["status"],
  }),
  rt("apps", "v1", "controllerrevisions", "ControllerRevision", true),
  rt("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, {
    shortNames: ["hpa"],
    categories: ["all"],
    subresources: ["status"],
  }),
  rt("batch", "v1", "jobs", "Job", true, { categories: ["all"], subresources: ["status"] }),
  rt("batch", "v1", "cronjobs", "CronJob", true, {
    shortNames: ["cj"],
    categories: ["all"],
    subresources: ["status"],
  }),
  rt("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, {
    shortNames: ["pdb"],
    subresources: ["status"],
  }),
  rt("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false, {
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    subresources: ["status"],
  }),
  ...["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"].map((kind) =>
    rt("rbac.authorization.k8s.io", "v1", `${kind.toLowerCase()}s`, kind, !kind.startsWith("Cluster")),
  ),
  // create-only reviews, answered from the caller's identity and never stored (src/sim/auth)
  ...[
    ["authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false],
    ["authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false],
    ["authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", false],
    ["authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", true],
    ["authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", false],
    ["authentication.k8s.io", "tokenreviews", "TokenReview", false],
  ].map(([g, r, k, n]) =>
    rt(g as string, "v1", r as string, k as string, n as boolean, { verbs: ["create"] }),
  ),
  rt("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", true, { verbs: RO }),
  rt("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", false, { verbs: RO }),
  ...["StressChaos", "NetworkChaos", "PodChaos", "IOChaos"].map((kind) =>
    rt("chaos-mesh.org", "v1alpha1", kind.toLowerCase(), kind, true, {
      categories: ["chaos-mesh"],
      subresources: ["status"],
      custom: true,
    }),
  ),
];

/** Metrics are computed on read, never stored. */
export const isMetrics = (r: ResourceType) => r.group === "metrics.k8s.io";

export const apiVersionOf = (r: ResourceType) => (r.group ? `${r.group}/${r.version}` : r.version);

const byPath = new Map(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

export function resourceByPath(group: string, version: string, resource: string): ResourceType | undefined {
  return byPath.get(`${group}/${version}/${resource}`);
}

/** The resource a kind belongs to, whatever its version (for owner references). */
export function resourceOfKind(kind: string, group?: string): ResourceType | undefined {
  return RESOURCES.find(
    (r) => r.kind === kind && !isMetrics(r) && (group === undefined || r.group === group),
  );
}

export interface GroupVersion {
  group: string;
  version: string;
}

export function groupVersions(extra: ResourceType[] = []): GroupVersion[] {
  const seen = new Map<string, GroupVersion>();
  for (const r of [...RESOURCES, ...extra])
    seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
  return [...seen.values()];
}

const byKind = new Map<string, ResourceType>();

/** The ResourceType of a built-in kind ("Pod", "Deployment", ...). */
export function R(kind: string): ResourceType {
  let rt = byKind.get(kind);
  if (!rt) {
    rt = resourceOfKind(kind);
    if (!rt) throw new Error(`unknown kind ${kind}`);
    byKind.set(kind, rt);
  }
  return rt;
}
