// Localization scored from facts (issue 23): which objects the fault changed or targeted, against
// what the agent changed (audit.ts). A fault's objects are what its injection touched
// (Injection.touched: a patched or deleted Service, a created NetworkPolicy) and the workload of
// its service: the Deployment, its ReplicaSets and pods (a chaos fault selects the pod; replacing
// it or rolling its controller is acting on the fault). The agent localized when it changed an
// object of every fault and no workload of another service: a restart of every Deployment that
// happens to repair is not finding the fault, whatever it touched on the way.
import type { Injection } from "../chaos/inject.js";
import { type Change, changeLabel } from "./audit.js";

export interface Localization {
  /** The agent's distinct changes ("patch deployments/hello-service"). */
  changed: string[];
  /** The faults' objects ("deployments/hello-service", "services/hello-service"). */
  faultObjects: string[];
  localized: boolean;
  /** What the agent changed that no fault touched or targeted. */
  collateral: string[];
}

const RESOURCE: Record<string, string> = {
  Deployment: "deployments",
  StatefulSet: "statefulsets",
  Service: "services",
  NetworkPolicy: "networkpolicies",
  ConfigMap: "configmaps",
  Pod: "pods",
};
const resourceOf = (kind: string) => RESOURCE[kind] ?? `${kind.toLowerCase()}s`;
const WORKLOAD = new Set(["deployments", "statefulsets", "replicasets", "pods"]);

/** Whether the object is of the service's workload: itself, or a ReplicaSet or pod it owns by name. */
function ofWorkload(c: Change, service: string): boolean {
  if (!c.name || !WORKLOAD.has(c.resource)) return false;
  if (c.resource === "deployments" || c.resource === "statefulsets") return c.name === service;
  // <deployment>-<template hash>[-<pod suffix>], or a StatefulSet's <name>-<ordinal>
  return new RegExp(`^${service.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-[a-z0-9]+(-[a-z0-9]{5})?$`).test(
    c.name,
  );
}

/** Whether a change acts on the injection's fault. */
function onFault(c: Change, inj: Injection): boolean {
  if (ofWorkload(c, inj.service)) return true;
  return (inj.touched ?? []).some((t) => {
    if (resourceOf(t.kind) !== c.resource) return false;
    // a deleted object comes back by a create, whose name is in its body, not in the path
    if (t.action === "deleted" && c.verb === "create" && !c.name) return true;
    return c.name === t.name;
  });
}

export function scoreLocalization(changes: Change[], injections: Injection[]): Localization {
  const faultObjects = [
    ...new Set(
      injections.flatMap((i) => [
        `deployments/${i.service}`,
        ...(i.touched ?? []).map((t) => `${resourceOf(t.kind)}/${t.name}`),
      ]),
    ),
  ];
  const services = injections.map((i) => i.service);
  const collateralChanges = changes.filter((c) => !injections.some((i) => onFault(c, i)));
  const otherWorkloads = collateralChanges.filter(
    (c) => c.name && WORKLOAD.has(c.resource) && !services.some((s) => ofWorkload(c, s)),
  );
  const everyFault = injections.length > 0 && injections.every((i) => changes.some((c) => onFault(c, i)));
  return {
    changed: [...new Set(changes.map(changeLabel))],
    faultObjects,
    localized: everyFault && otherWorkloads.length === 0,
    collateral: [...new Set(collateralChanges.map(changeLabel))],
  };
}
