// Typed views of the fields the simulator reads, from client-node's models. The store holds JSON,
// where client-node's models say Date the stored object has an RFC 3339 string: Stored<T> says so.
import type {
  CoreV1EndpointPort,
  V1Condition,
  V1Container,
  V1ContainerPort,
  V1ContainerState,
  V1ContainerStatus,
  V1CronJobStatus,
  V1CustomResourceDefinitionNames,
  V1CustomResourceDefinitionSpec,
  V1CustomResourceDefinitionStatus,
  V1CustomResourceDefinitionVersion,
  V1EndpointAddress,
  V1EndpointSubset,
  V1EnvVar,
  V1HostAlias,
  V1JobSpec,
  V1JobStatus,
  V1KeyToPath,
  V1LabelSelectorRequirement,
  V1LoadBalancerIngress,
  V1NodeAddress,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
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
  V1Probe,
  V1ReplicaSetStatus,
  V1ResourceFieldSelector,
  V1ResourceRequirements,
  V1ServicePort,
  V1StatefulSetStatus,
  V1SuccessPolicyRule,
  V1Taint,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
  V1VolumeProjection,
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
