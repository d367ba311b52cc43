// Typed views of the fields the simulator reads, from client-node's models. The store holds JSON,
// where client-node's models say Date the stored object has an RFC 3339 string: Stored<T> says so.
import type {
  CoreV1EndpointPort,
  RbacV1Subject,
  V1AggregationRule,
  V1Condition,
  V1Container,
  V1ContainerPort,
  V1ContainerState,
  V1ContainerStatus,
  V1CronJobSpec,
  V1CronJobStatus,
  V1CustomResourceDefinitionNames,
  V1CustomResourceDefinitionSpec,
  V1CustomResourceDefinitionStatus,
  V1CustomResourceDefinitionVersion,
  V1DaemonSetSpec,
  V1DaemonSetStatus,
  V1DeploymentSpec,
  V1DeploymentStatus,
  V1EndpointAddress,
  V1EndpointSubset,
  V1EnvVar,
  V1EventSource,
  V1HostAlias,
  V1JobSpec,
  V1JobStatus,
  V1KeyToPath,
  V1LabelSelectorRequirement,
  V1LoadBalancerIngress,
  V1NamespaceSpec,
  V1NamespaceStatus,
  V1NodeAddress,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
  V1NodeSpec,
  V1NodeStatus,
  V1ObjectReference,
  V1PodCondition,
  V1PodDisruptionBudgetSpec,
  V1PodDisruptionBudgetStatus,
  V1PodDNSConfigOption,
  V1PodFailurePolicyOnExitCodesRequirement,
  V1PodFailurePolicyRule,
  V1PodReadinessGate,
  V1PodSpec,
  V1PodStatus,
  V1PodTemplateSpec,
  V1PolicyRule,
  V1Probe,
  V1ReplicaSetSpec,
  V1ReplicaSetStatus,
  V1ResourceFieldSelector,
  V1ResourceRequirements,
  V1RoleRef,
  V1ServicePort,
  V1ServiceSpec,
  V1ServiceStatus,
  V1StatefulSetSpec,
  V1StatefulSetStatus,
  V1SuccessPolicyRule,
  V1Taint,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
  V1VolumeProjection,
  V2HorizontalPodAutoscalerSpec,
  V2HorizontalPodAutoscalerStatus,
  V2MetricSpec,
  V2MetricStatus,
  V2MetricTarget,
  V2ResourceMetricSource,
} from "@kubernetes/client-node";
import type { KObject } from "./types.js";

/** T as stored: every Date of client-node's model is the string the API serves. */
export type Stored<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Stored<U>[]
    : T extends object
      ? { [K in keyof T]: Stored<T[K]> }
      : T;

export type Container = Stored<V1Container>;
export type ContainerPort = Stored<V1ContainerPort>;
export type ContainerStatus = Stored<V1ContainerStatus>;
export type ContainerState = Stored<V1ContainerState>;
export type PodSpec = Stored<V1PodSpec>;
export type PodStatus = Stored<V1PodStatus>;
export type ReadinessGate = Stored<V1PodReadinessGate>;
export type PodTemplate = Stored<V1PodTemplateSpec>;
export type PodCondition = Stored<V1PodCondition>;
export type Probe = Stored<V1Probe>;
export type Toleration = Stored<V1Toleration>;
export type Taint = Stored<V1Taint>;
export type Volume = Stored<V1Volume>;
export type VolumeMount = Stored<V1VolumeMount>;
export type VolumeProjection = Stored<V1VolumeProjection>;
export type KeyToPath = Stored<V1KeyToPath>;
export type ServicePort = Stored<V1ServicePort>;
export type HostAlias = Stored<V1HostAlias>;
export type DnsOption = Stored<V1PodDNSConfigOption>;
export type ResourceRef = Stored<V1ResourceFieldSelector>;
export type ResourceRequirements = Stored<V1ResourceRequirements>;
export type NodeAddress = Stored<V1NodeAddress>;
export type NodeSelectorTerm = Stored<V1NodeSelectorTerm>;
/** A selector requirement, of labels or of node fields: key, operator, values. */
export type SelectorRequirement = Stored<V1NodeSelectorRequirement> | Stored<V1LabelSelectorRequirement>;
export type JobSpec = Stored<V1JobSpec>;
export type JobStatus = Stored<V1JobStatus>;
export type EnvVar = Stored<V1EnvVar>;
export type FailurePolicyRule = Stored<V1PodFailurePolicyRule>;
export type OnExitCodes = Stored<V1PodFailurePolicyOnExitCodesRequirement>;
export type SuccessPolicyRule = Stored<V1SuccessPolicyRule>;
export type CronJobStatus = Stored<V1CronJobStatus>;
export type ObjectReference = Stored<V1ObjectReference>;
export type ReplicaSetStatus = Stored<V1ReplicaSetStatus>;
export type StatefulSetStatus = Stored<V1StatefulSetStatus>;
export type PdbSpec = Stored<V1PodDisruptionBudgetSpec>;
/** Partial: an object not yet synced has none of the counts the model requires. */
export type PdbStatus = Partial<Stored<V1PodDisruptionBudgetStatus>>;
export type CrdSpec = Stored<V1CustomResourceDefinitionSpec>;
export type CrdStatus = Stored<V1CustomResourceDefinitionStatus>;
export type CrdVersion = Stored<V1CustomResourceDefinitionVersion>;
export type CrdNames = Stored<V1CustomResourceDefinitionNames>;
export type EndpointAddress = Stored<V1EndpointAddress>;
export type EndpointSubset = Stored<V1EndpointSubset>;
export type LoadBalancerIngress = Stored<V1LoadBalancerIngress>;
export type MetricSpec = Stored<V2MetricSpec>;
export type MetricStatus = Stored<V2MetricStatus>;
export type MetricTarget = Stored<V2MetricTarget>;
export type ResourceMetric = Stored<V2ResourceMetricSource>;
/** A port of an Endpoints subset; `port` may be unresolved while it is built. */
export type EndpointPort = Omit<Stored<CoreV1EndpointPort>, "port"> & { port?: number };

/** metav1.Condition, the condition of the newer kinds (PDB). */
export type StatusCondition = Stored<V1Condition>;

/** A condition of any object's status (Pod, PDB, CRD, Node): the fields every kind shares. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  observedGeneration?: number;
}

/** A stored object read as an open JSON document, for code that walks it field by field. */
export type Doc = Record<string, unknown>;

export type { KObject };

// The kinds the simulator reads, as stored. A store read is a KObject; code that knows the kind
// says so once (`store.get(...) as Pod | undefined`) and then reads typed fields.
export interface Pod extends KObject {
  spec: PodSpec;
  status?: PodStatus;
}
export interface Deployment extends KObject {
  spec: Stored<V1DeploymentSpec>;
  status?: Stored<V1DeploymentStatus>;
}
export interface ReplicaSet extends KObject {
  spec: Stored<V1ReplicaSetSpec>;
  status?: ReplicaSetStatus;
}
export interface StatefulSet extends KObject {
  spec: Stored<V1StatefulSetSpec>;
  status?: StatefulSetStatus;
}
export interface DaemonSet extends KObject {
  spec: Stored<V1DaemonSetSpec>;
  status?: Stored<V1DaemonSetStatus>;
}
export interface Job extends KObject {
  spec: JobSpec;
  status?: JobStatus;
}
export interface CronJob extends KObject {
  spec: Stored<V1CronJobSpec>;
  status?: CronJobStatus;
}
export interface Service extends KObject {
  spec: Stored<V1ServiceSpec>;
  status?: Stored<V1ServiceStatus>;
}
export interface Endpoints extends KObject {
  subsets?: EndpointSubset[];
}
export interface Node extends KObject {
  spec?: Stored<V1NodeSpec>;
  status?: Stored<V1NodeStatus>;
}
export interface Namespace extends KObject {
  spec?: Stored<V1NamespaceSpec>;
  status?: Stored<V1NamespaceStatus>;
}
export interface ConfigMap extends KObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}
export interface Secret extends KObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}
export interface ServiceAccount extends KObject {
  secrets?: ObjectReference[];
  automountServiceAccountToken?: boolean;
}
export interface PodDisruptionBudget extends KObject {
  spec: PdbSpec;
  status?: PdbStatus;
}
export interface CustomResourceDefinition extends KObject {
  spec: CrdSpec;
  status?: CrdStatus;
}
export interface HorizontalPodAutoscaler extends KObject {
  spec: Stored<V2HorizontalPodAutoscalerSpec>;
  status?: Stored<V2HorizontalPodAutoscalerStatus>;
}
export interface ControllerRevision extends KObject {
  revision: number;
  data?: unknown;
}
export interface Role extends KObject {
  rules?: Stored<V1PolicyRule>[];
  aggregationRule?: Stored<V1AggregationRule>;
}
export interface RoleBinding extends KObject {
  roleRef: Stored<V1RoleRef>;
  subjects?: Stored<RbacV1Subject>[];
}
export interface Event extends KObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  source?: Stored<V1EventSource>;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  reportingComponent?: string;
  reportingInstance?: string;
}
/** A Chaos Mesh object: its spec is the experiment's, read by each kind's own code. */
export interface Chaos extends KObject {
  spec: Doc;
  status?: Doc;
}
