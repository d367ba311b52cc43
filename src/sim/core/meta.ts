// Helpers on any object's metadata and status that every part of the embedded cluster reads:
// store keys, owner references, a pod's readiness, a node's address. Pure functions of the
// object, below every component (as apimachinery's meta helpers are in kube).
import type { Node, NodeAddress, Pod, PodCondition } from "./objects.js";
import type { KObject } from "./types.js";

export const keyOf = (o: KObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;

export function splitKey(key: string): [string | undefined, string] {
  const i = key.indexOf("/");
  const ns = key.slice(0, i);
  return [ns || undefined, key.slice(i + 1)];
}

export function controllerOf(o: KObject) {
  return o.metadata.ownerReferences?.find((r) => r.controller);
}

export function ownerRef(owner: KObject, controller = true) {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller,
    blockOwnerDeletion: true,
  };
}

export const podReady = (p: KObject) =>
  (p as Pod).status?.conditions?.some((c: PodCondition) => c.type === "Ready" && c.status === "True") ??
  false;

/** A node's InternalIP, as the kubelet reports it in status.addresses. */
export function internalIP(node: KObject): string | undefined {
  return (node as Node).status?.addresses?.find((a: NodeAddress) => a.type === "InternalIP")?.address;
}
