// Typed views of the Kubernetes objects the runner reads, from client-node's models. The JSON the
// API answers has strings where the models have Date (timestamps); the runner reads none of those
// as dates, so the models' shapes hold for every field it touches.
import type {
  V1DeploymentSpec,
  V1DeploymentStatus,
  V1EndpointSubset,
  V1PodSpec,
  V1PodStatus,
  V1ServiceSpec,
  V1StatefulSetSpec,
  V1StatefulSetStatus,
} from "@kubernetes/client-node";

/** Any object as the API serves it: its kind and metadata; the rest is open. */
export interface KObj {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    creationTimestamp?: string;
    generation?: number;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
    [k: string]: unknown;
  };
  [field: string]: unknown;
}

export interface Endpoints extends KObj {
  subsets?: V1EndpointSubset[];
}

export interface Pod extends KObj {
  spec?: V1PodSpec;
  status?: V1PodStatus;
}

export interface Deployment extends KObj {
  spec?: V1DeploymentSpec;
  status?: V1DeploymentStatus;
}

export interface StatefulSet extends KObj {
  spec?: V1StatefulSetSpec;
  status?: V1StatefulSetStatus;
}

export interface Service extends KObj {
  spec?: V1ServiceSpec;
}

/** A Chaos Mesh object as the harness writes it (spec fields per kind are open). */
export interface Chaos extends KObj {
  spec?: Record<string, unknown> & { mode?: string; value?: string };
}

export type Workload = Deployment | StatefulSet;
