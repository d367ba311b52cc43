// The built-in resources the embedded cluster serves: those kube-apiserver v1.31 enables by
// default (pkg/controlplane/instance.go's DefaultAPIResourceConfigSource: every GA group-version,
// no beta or alpha one), with each resource's short names, categories, verbs and subresources as
// its REST storage declares them (ShortNames(), Categories(), the verbs of the interfaces it
// implements), plus what metrics-server and Chaos Mesh add. k3s's own kinds and Traefik's are
// CRDs, applied when the cluster starts (../cluster/k3s.ts). Read by resources.ts.
import type { ResourceType } from "../core/types.js";

export const RW = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const RO = ["get", "list"];
const CREATE = ["create"];
// namespaces have no deletecollection (pkg/registry/core/namespace/storage: REST wraps the store
// without it)
const NS_VERBS = ["create", "delete", "get", "list", "patch", "update", "watch"];

type Extra = Partial<ResourceType>;

function rt(
  gv: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: Extra = {},
): ResourceType {
  const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
  return { group, version, resource, kind, singular: kind.toLowerCase(), namespaced, verbs: RW, ...extra };
}

const ALL = { categories: ["all"] };
const EXT = { categories: ["api-extensions"] };
const STATUS = { subresources: ["status"] };

const core: ResourceType[] = [
  rt("v1", "bindings", "Binding", true, { verbs: CREATE }),
  rt("v1", "componentstatuses", "ComponentStatus", false, { shortNames: ["cs"], verbs: RO }),
  rt("v1", "configmaps", "ConfigMap", true, { shortNames: ["cm"] }),
  rt("v1", "endpoints", "Endpoints", true, { shortNames: ["ep"] }),
  rt("v1", "events", "Event", true, { shortNames: ["ev"] }),
  rt("v1", "limitranges", "LimitRange", true, { shortNames: ["limits"] }),
  rt("v1", "namespaces", "Namespace", false, {
    shortNames: ["ns"],
    verbs: NS_VERBS,
    subresources: ["status", "finalize"],
  }),
  rt("v1", "nodes", "Node", false, { shortNames: ["no"], ...STATUS }),
  rt("v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, { shortNames: ["pvc"], ...STATUS }),
  rt("v1", "persistentvolumes", "PersistentVolume", false, { shortNames: ["pv"], ...STATUS }),
  rt("v1", "pods", "Pod", true, {
    shortNames: ["po"],
    ...ALL,
    subresources: ["status", "log", "exec", "eviction", "binding"],
  }),
  rt("v1", "podtemplates", "PodTemplate", true),
  rt("v1", "replicationcontrollers", "ReplicationController", true, {
    shortNames: ["rc"],
    ...ALL,
    subresources: ["status", "scale"],
  }),
  rt("v1", "resourcequotas", "ResourceQuota", true, { shortNames: ["quota"], ...STATUS }),
  rt("v1", "secrets", "Secret", true),
  rt("v1", "serviceaccounts", "ServiceAccount", true, { shortNames: ["sa"], subresources: ["token"] }),
  rt("v1", "services", "Service", true, { shortNames: ["svc"], ...ALL, ...STATUS }),
];

const apps: ResourceType[] = [
  rt("apps/v1", "controllerrevisions", "ControllerRevision", true),
  rt("apps/v1", "daemonsets", "DaemonSet", true, { shortNames: ["ds"], ...ALL, ...STATUS }),
  rt("apps/v1", "deployments", "Deployment", true, {
    shortNames: ["deploy"],
    ...ALL,
    subresources: ["status", "scale"],
  }),
  rt("apps/v1", "replicasets", "ReplicaSet", true, {
    shortNames: ["rs"],
    ...ALL,
    subresources: ["status", "scale"],
  }),
  rt("apps/v1", "statefulsets", "StatefulSet", true, {
    shortNames: ["sts"],
    ...ALL,
    subresources: ["status", "scale"],
  }),
];

// create-only reviews, answered from the caller's identity and never stored (src/sim/auth)
const reviews: ResourceType[] = [
  rt("authentication.k8s.io/v1", "selfsubjectreviews", "SelfSubjectReview", false, { verbs: CREATE }),
  rt("authentication.k8s.io/v1", "tokenreviews", "TokenReview", false, { verbs: CREATE }),
  rt("authorization.k8s.io/v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", true, {
    verbs: CREATE,
  }),
  rt("authorization.k8s.io/v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false, {
    verbs: CREATE,
  }),
  rt("authorization.k8s.io/v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false, {
    verbs: CREATE,
  }),
  rt("authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview", false, { verbs: CREATE }),
];

const HPA = { shortNames: ["hpa"], ...ALL, ...STATUS };

const groups: ResourceType[] = [
  ...["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].map((kind) =>
    rt("admissionregistration.k8s.io/v1", `${kind.toLowerCase()}s`, kind, false, EXT),
  ),
  rt("admissionregistration.k8s.io/v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false, {
    ...EXT,
    ...STATUS,
  }),
  rt(
    "admissionregistration.k8s.io/v1",
    "validatingadmissionpolicybindings",
    "ValidatingAdmissionPolicyBinding",
    false,
    EXT,
  ),
  rt("apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", false, {
    shortNames: ["crd", "crds"],
    ...EXT,
    ...STATUS,
  }),
  rt("apiregistration.k8s.io/v1", "apiservices", "APIService", false, { ...EXT, ...STATUS }),
  // v2 is the preferred version (listed first); v1 reads and writes the same objects
  rt("autoscaling/v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, HPA),
  rt("autoscaling/v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, HPA),
  rt("batch/v1", "cronjobs", "CronJob", true, { shortNames: ["cj"], ...ALL, ...STATUS }),
  rt("batch/v1", "jobs", "Job", true, { ...ALL, ...STATUS }),
  rt("certificates.k8s.io/v1", "certificatesigningrequests", "CertificateSigningRequest", false, {
    shortNames: ["csr"],
    subresources: ["approval", "status"],
  }),
  rt("coordination.k8s.io/v1", "leases", "Lease", true),
  rt("discovery.k8s.io/v1", "endpointslices", "EndpointSlice", true),
  rt("events.k8s.io/v1", "events", "Event", true, { shortNames: ["ev"], storage: "/events" }),
  rt("flowcontrol.apiserver.k8s.io/v1", "flowschemas", "FlowSchema", false, STATUS),
  rt(
    "flowcontrol.apiserver.k8s.io/v1",
    "prioritylevelconfigurations",
    "PriorityLevelConfiguration",
    false,
    STATUS,
  ),
  rt("networking.k8s.io/v1", "ingressclasses", "IngressClass", false),
  rt("networking.k8s.io/v1", "ingresses", "Ingress", true, { shortNames: ["ing"], ...STATUS }),
  rt("networking.k8s.io/v1", "networkpolicies", "NetworkPolicy", true, { shortNames: ["netpol"] }),
  rt("node.k8s.io/v1", "runtimeclasses", "RuntimeClass", false),
  rt("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", true, { shortNames: ["pdb"], ...STATUS }),
  ...["ClusterRoleBinding", "ClusterRole", "RoleBinding", "Role"].map((kind) =>
    rt("rbac.authorization.k8s.io/v1", `${kind.toLowerCase()}s`, kind, !kind.startsWith("Cluster")),
  ),
  rt("scheduling.k8s.io/v1", "priorityclasses", "PriorityClass", false, { shortNames: ["pc"] }),
  rt("storage.k8s.io/v1", "csidrivers", "CSIDriver", false),
  rt("storage.k8s.io/v1", "csinodes", "CSINode", false),
  rt("storage.k8s.io/v1", "csistoragecapacities", "CSIStorageCapacity", true),
  rt("storage.k8s.io/v1", "storageclasses", "StorageClass", false, { shortNames: ["sc"] }),
  rt("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment", false, STATUS),
];

// metrics-server's aggregated API, and Chaos Mesh's kinds (whose controllers are src/sim/chaos)
const addOns: ResourceType[] = [
  rt("metrics.k8s.io/v1beta1", "nodes", "NodeMetrics", false, { verbs: RO }),
  rt("metrics.k8s.io/v1beta1", "pods", "PodMetrics", true, { verbs: RO }),
  ...["StressChaos", "NetworkChaos", "PodChaos", "IOChaos", "HTTPChaos"].map((kind) =>
    rt("chaos-mesh.org/v1alpha1", kind.toLowerCase(), kind, true, {
      categories: ["chaos-mesh"],
      subresources: ["status"],
      custom: true,
    }),
  ),
];

export const BUILTIN_RESOURCES: ResourceType[] = [...core, ...apps, ...reviews, ...groups, ...addOns];
