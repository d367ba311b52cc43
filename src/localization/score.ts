// Localization scored from facts: which objects the fault changed or targeted,
// against what the agent changed (audit.ts). `localized` is true when the agent's changes touched
// the fault's object, or, for a chaos fault, replaced the selected pod or its controller:
//   - a chaos fault (StressChaos, NetworkChaos, ...: Injection.chaos) selects the service's pods,
//     so its objects are the service's workload: the Deployment or StatefulSet, its ReplicaSets
//     and pods (replacing the pod or rolling its controller acts on the fault);
//   - a fault whose object is the workload (the reference's config patch, which records nothing
//     it touched; the expert tier's patches of the Deployment: a bad image, scale-zero, ...) has
//     the Deployment as its object, by name; deleting one of its pods does not touch it;
//   - any other fault's objects are what its injection touched (Injection.touched: a patched or
//     deleted Service, a created NetworkPolicy), matched by resource and name. A deleted object
//     comes back by a create, named in the audit log by the proxy (api-proxy.ts); restarting the
//     service's Deployment does not touch a Service or a NetworkPolicy.
// The agent localized when it changed an object of every fault and no workload of another
// service: a restart of every Deployment that happens to repair is not finding the fault,
// whatever it touched on the way.
import type { Injection } from "../faults/inject.js";
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

type Obj = { resource: string; name: string };
const objOf = (c: { kind: string; name: string }): Obj => ({ resource: resourceOf(c.kind), name: c.name });

/** Each cause of an incident as the objects that carry it: the cause's own, then those it acts through (via). */
const causeObjects = (inj: Injection): Obj[][] =>
  (inj.causes ?? []).map((c) => [objOf(c), ...(c.via ?? []).map(objOf)]);

/** The objects the injection changed: what it touched, or (a config patch records none) its Deployment. */
function objectsOf(inj: Injection): Obj[] {
  // an incident's objects are its causes (and what carries them), never the red herrings its steps also touched
  if (inj.causes?.length) return causeObjects(inj).flat();
  if (inj.touched?.length) return inj.touched.map((t) => ({ resource: resourceOf(t.kind), name: t.name }));
  return [{ resource: "deployments", name: inj.target }];
}

/** Whether a change acts on the injection's fault. */
function onFault(c: Change, inj: Injection): boolean {
  // a chaos fault selects the service's pods: replacing one, or rolling its controller, acts on it
  if (inj.chaos) return ofWorkload(c, inj.target);
  return objectsOf(inj).some((o) => o.resource === c.resource && o.name === c.name);
}

export function scoreLocalization(changes: Change[], injections: Injection[]): Localization {
  const faultObjects = [
    ...new Set(
      injections.flatMap((i) =>
        i.chaos
          ? [`deployments/${i.target}`]
          : i.causes?.length
            ? causeObjects(i).map((c) => c.map((o) => `${o.resource}/${o.name}`).join(" or "))
            : objectsOf(i).map((o) => `${o.resource}/${o.name}`),
      ),
    ),
  ];
  const services = injections.flatMap((i) =>
    i.causes ? i.causes.filter((c) => c.kind === "Deployment").map((c) => c.name) : [i.target],
  );
  const collateralChanges = changes.filter((c) => !injections.some((i) => onFault(c, i)));
  const otherWorkloads = collateralChanges.filter(
    (c) => c.name && WORKLOAD.has(c.resource) && !services.some((s) => ofWorkload(c, s)),
  );
  // an incident is localized when every one of its causes was changed (itself or an object that
  // carries it), not one of them
  const changed = (o: Obj) => changes.some((c) => c.resource === o.resource && c.name === o.name);
  const found = (i: Injection) =>
    i.causes?.length
      ? causeObjects(i).every((objs) => objs.some(changed))
      : changes.some((c) => onFault(c, i));
  const everyFault = injections.length > 0 && injections.every(found);
  return {
    changed: [...new Set(changes.map(changeLabel))],
    faultObjects,
    localized: everyFault && otherWorkloads.length === 0,
    collateral: [...new Set(collateralChanges.map(changeLabel))],
  };
}
