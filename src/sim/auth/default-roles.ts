// The default ClusterRoles and ClusterRoleBindings kube-apiserver bootstraps, modelled on
// kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (v1.31) and its golden
// testdata/cluster-roles.yaml, plus metrics-server's system:aggregated-metrics-reader (k3s ships
// it), which is how view/edit/admin come to read metrics.k8s.io. chaos-mesh.org is in none.
import type { PolicyRule } from "./rules.js";

const READ = ["get", "list", "watch"];
const WRITE = ["create", "delete", "deletecollection", "patch", "update"];
const RW = [...READ, ...WRITE];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

const AGG = "rbac.authorization.k8s.io/aggregate-to-";

export interface DefaultRole {
  name: string;
  labels?: Record<string, string>;
  /** Aggregated roles: their rules are the union of the ClusterRoles these labels select. */
  aggregateFrom?: string[];
  rules?: PolicyRule[];
}

export const DEFAULT_CLUSTER_ROLES: DefaultRole[] = [
  { name: "cluster-admin", rules: [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])] },
  {
    name: "system:discovery",
    rules: [
      urls(
        ["get"],
        [
          "/api",
          "/api/*",
          "/apis",
          "/apis/*",
          "/healthz",
          "/livez",
          "/openapi",
          "/openapi/*",
          "/readyz",
          "/version",
          "/version/",
        ],
      ),
    ],
  },
  {
    name: "system:basic-user",
    rules: [
      rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ],
  },
  {
    name: "system:public-info-viewer",
    rules: [urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])],
  },
  { name: "admin", aggregateFrom: [`${AGG}admin`] },
  { name: "edit", labels: { [`${AGG}admin`]: "true" }, aggregateFrom: [`${AGG}edit`] },
  { name: "view", labels: { [`${AGG}edit`]: "true" }, aggregateFrom: [`${AGG}view`] },
  {
    name: "system:aggregate-to-admin",
    labels: { [`${AGG}admin`]: "true" },
    rules: [
      rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
      rule(RW, ["rbac.authorization.k8s.io"], ["rolebindings", "roles"]),
    ],
  },
  {
    name: "system:aggregate-to-edit",
    labels: { [`${AGG}edit`]: "true" },
    rules: [
      rule(
        READ,
        [""],
        ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"],
      ),
      rule(["impersonate"], [""], ["serviceaccounts"]),
      rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
      rule(["create"], [""], ["pods/eviction"]),
      rule(
        WRITE,
        [""],
        [
          "configmaps",
          "events",
          "persistentvolumeclaims",
          "replicationcontrollers",
          "replicationcontrollers/scale",
          "secrets",
          "serviceaccounts",
          "services",
          "services/proxy",
        ],
      ),
      rule(["create"], [""], ["serviceaccounts/token"]),
      rule(
        WRITE,
        ["apps"],
        [
          "daemonsets",
          "deployments",
          "deployments/rollback",
          "deployments/scale",
          "replicasets",
          "replicasets/scale",
          "statefulsets",
          "statefulsets/scale",
        ],
      ),
      rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
      rule(WRITE, ["batch"], ["cronjobs", "jobs"]),
      rule(
        WRITE,
        ["extensions"],
        [
          "daemonsets",
          "deployments",
          "deployments/rollback",
          "deployments/scale",
          "ingresses",
          "networkpolicies",
          "replicasets",
          "replicasets/scale",
          "replicationcontrollers/scale",
        ],
      ),
      rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
      rule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
      rule(RW, ["coordination.k8s.io"], ["leases"]),
    ],
  },
  {
    name: "system:aggregate-to-view",
    labels: { [`${AGG}view`]: "true" },
    rules: [
      rule(
        READ,
        [""],
        [
          "configmaps",
          "endpoints",
          "persistentvolumeclaims",
          "persistentvolumeclaims/status",
          "pods",
          "replicationcontrollers",
          "replicationcontrollers/scale",
          "serviceaccounts",
          "services",
          "services/status",
        ],
      ),
      rule(
        READ,
        [""],
        [
          "bindings",
          "events",
          "limitranges",
          "namespaces/status",
          "pods/log",
          "pods/status",
          "replicationcontrollers/status",
          "resourcequotas",
          "resourcequotas/status",
        ],
      ),
      rule(READ, [""], ["namespaces"]),
      rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
      rule(
        READ,
        ["apps"],
        [
          "controllerrevisions",
          "daemonsets",
          "daemonsets/status",
          "deployments",
          "deployments/scale",
          "deployments/status",
          "replicasets",
          "replicasets/scale",
          "replicasets/status",
          "statefulsets",
          "statefulsets/scale",
          "statefulsets/status",
        ],
      ),
      rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
      rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
      rule(
        READ,
        ["extensions"],
        [
          "daemonsets",
          "daemonsets/status",
          "deployments",
          "deployments/scale",
          "deployments/status",
          "ingresses",
          "ingresses/status",
          "networkpolicies",
          "replicasets",
          "replicasets/scale",
          "replicasets/status",
          "replicationcontrollers/scale",
        ],
      ),
      rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
      rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
    ],
  },
  {
    // metrics-server's manifest: what `kubectl top` needs, for everyone with view, edit or admin
    name: "system:aggregated-metrics-reader",
    labels: { [`${AGG}view`]: "true", [`${AGG}edit`]: "true", [`${AGG}admin`]: "true" },
    rules: [rule(READ, ["metrics.k8s.io"], ["pods", "nodes"])],
  },
];

export interface DefaultBinding {
  name: string;
  role: string;
  groups: string[];
}

export const DEFAULT_CLUSTER_ROLE_BINDINGS: DefaultBinding[] = [
  { name: "cluster-admin", role: "cluster-admin", groups: ["system:masters"] },
  { name: "system:discovery", role: "system:discovery", groups: ["system:authenticated"] },
  { name: "system:basic-user", role: "system:basic-user", groups: ["system:authenticated"] },
  {
    name: "system:public-info-viewer",
    role: "system:public-info-viewer",
    groups: ["system:authenticated", "system:unauthenticated"],
  },
];
