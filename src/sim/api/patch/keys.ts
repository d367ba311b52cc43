// Patch metadata of the built-in kinds: which lists strategic merge patch merges, and by which
// key. This is the `patchStrategy`/`patchMergeKey` struct tags of k8s.io/api, kept as data and
// limited to the fields that carry one (plus the paths that lead to them). A field not listed
// here behaves as untagged in Go: objects merge key by key, lists are replaced whole
// (tolerations, args, command, envFrom, taints, ... are atomic in kube too).

export interface FieldMeta {
  /** Schema type of the value; for a list, of each element. */
  type?: TypeName;
  /** "merge": a list merged by `key` (or, without a key, a set of primitives). */
  strategy?: "merge";
  /** Patch merge key of a list of objects. */
  key?: string;
}

const nested = (type: TypeName): FieldMeta => ({ type });
const keyed = (key: string, type?: TypeName): FieldMeta => ({ strategy: "merge", key, type });
const primitiveSet: FieldMeta = { strategy: "merge" };
const conditions = keyed("type");

export type TypeName =
  | "Root"
  | "ObjectMeta"
  | "PodTemplateSpec"
  | "PodSpec"
  | "Container"
  | "PodStatus"
  | "TemplateSpec"
  | "ConditionsStatus"
  | "JobTemplateSpec"
  | "CronJobSpec"
  | "ServiceSpec"
  | "NodeSpec"
  | "NodeStatus";

const SCHEMA: Record<TypeName, Record<string, FieldMeta>> = {
  Root: { metadata: nested("ObjectMeta") },
  ObjectMeta: { finalizers: primitiveSet, ownerReferences: keyed("uid") },

  PodTemplateSpec: { metadata: nested("ObjectMeta"), spec: nested("PodSpec") },
  PodSpec: {
    containers: keyed("name", "Container"),
    initContainers: keyed("name", "Container"),
    ephemeralContainers: keyed("name", "Container"),
    volumes: keyed("name"),
    imagePullSecrets: keyed("name"),
    hostAliases: keyed("ip"),
    topologySpreadConstraints: keyed("topologyKey"),
    resourceClaims: keyed("name"),
    schedulingGates: keyed("name"),
  },
  Container: {
    ports: keyed("containerPort"),
    env: keyed("name"),
    volumeMounts: keyed("mountPath"),
    volumeDevices: keyed("devicePath"),
  },
  PodStatus: {
    conditions,
    podIPs: keyed("ip"),
    hostIPs: keyed("ip"),
    resourceClaimStatuses: keyed("name"),
  },
  // Workloads: the pod template is where the keyed lists live.
  TemplateSpec: { template: nested("PodTemplateSpec") },
  ConditionsStatus: { conditions },
  JobTemplateSpec: { metadata: nested("ObjectMeta"), spec: nested("TemplateSpec") },
  CronJobSpec: { jobTemplate: nested("JobTemplateSpec") },

  ServiceSpec: { ports: keyed("port") },
  NodeSpec: { podCIDRs: primitiveSet },
  NodeStatus: { conditions, addresses: keyed("type") },
};

/** Top-level fields of each kind, beyond `metadata` which every kind has. */
const KINDS: Record<string, Record<string, FieldMeta>> = {
  Pod: { spec: nested("PodSpec"), status: nested("PodStatus") },
  PodTemplate: { template: nested("PodTemplateSpec") },
  Deployment: { spec: nested("TemplateSpec"), status: nested("ConditionsStatus") },
  ReplicaSet: { spec: nested("TemplateSpec"), status: nested("ConditionsStatus") },
  StatefulSet: { spec: nested("TemplateSpec"), status: nested("ConditionsStatus") },
  DaemonSet: { spec: nested("TemplateSpec"), status: nested("ConditionsStatus") },
  ReplicationController: { spec: nested("TemplateSpec") },
  Job: { spec: nested("TemplateSpec"), status: nested("ConditionsStatus") },
  CronJob: { spec: nested("CronJobSpec") },
  Service: { spec: nested("ServiceSpec"), status: nested("ConditionsStatus") },
  Node: { spec: nested("NodeSpec"), status: nested("NodeStatus") },
  Namespace: { status: nested("ConditionsStatus") },
  PersistentVolumeClaim: { status: nested("ConditionsStatus") },
  ServiceAccount: { secrets: keyed("name") },
};

/** Where a strategic merge starts: the top-level fields of `kind`. */
export type Fields = Readonly<Record<string, FieldMeta>>;

export function rootFields(kind: string): Fields {
  return { ...SCHEMA.Root, ...(KINDS[kind] ?? {}) };
}

/** The fields of a nested value, or none when its type carries no patch metadata. */
export function fieldsOf(meta: FieldMeta | undefined): Fields {
  return meta?.type ? SCHEMA[meta.type] : {};
}
