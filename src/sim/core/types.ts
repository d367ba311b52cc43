// Shapes of Kubernetes objects as the embedded cluster stores them: plain JSON.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

export interface KObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  /** Kubernetes objects are open JSON documents: code that knows the kind reads it as one of
   * src/sim/core/objects.ts's kinds (Pod, Deployment, ...). */
  [field: string]: unknown;
}

/** What the API serves for one resource, as in an APIResourceList. */
export interface ResourceType {
  group: string; // "" for the core group
  version: string;
  resource: string; // plural, e.g. "pods"
  kind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs: string[];
  /** Subresources served, e.g. ["status", "scale", "log", "exec"]. */
  subresources?: string[];
  /** Custom resources: strategic merge patch answers 415. */
  custom?: boolean;
  /**
   * Where the objects are kept when another resource owns the storage ("group/resource"): one
   * etcd key for both, as events.k8s.io/v1 events are core/v1 events.
   */
  storage?: string;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface StoreEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  rt: ResourceType;
  object: KObject;
  old?: KObject;
  rv: number;
}

/** The store key of a resource type: "group/resource" (every version of it shares the key). */
export const KEY = (r: ResourceType) => r.storage ?? `${r.group}/${r.resource}`;
