// ComponentStatus (v1, deprecated since 1.19): kube-apiserver probes the scheduler, the
// controller manager and each etcd server when asked (pkg/registry/core/componentstatus). In k3s
// all of them run in the server process and answer; the list comes sorted by name.
import type { KObject } from "../core/types.js";
import { notFound } from "./status.js";

/** The Warning header kube-apiserver adds (componentstatus.REST's deprecation warning). */
export const COMPONENT_STATUS_WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

const COMPONENTS = ["controller-manager", "etcd-0", "scheduler"];

function status(name: string): KObject {
  return {
    kind: "ComponentStatus",
    apiVersion: "v1",
    metadata: { name },
    conditions: [{ type: "Healthy", status: "True", message: "ok" }],
  };
}

/** The component statuses (all of them, or the one named; 404 for another name). */
export function componentStatuses(name?: string): KObject[] {
  if (name !== undefined && !COMPONENTS.includes(name)) throw notFound("componentstatuses", "", name);
  return COMPONENTS.filter((c) => name === undefined || c === name).map(status);
}
