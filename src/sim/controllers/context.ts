// What every controller of the embedded cluster is given.

import type { Rng } from "../../util/rng.js";
import type { Registry } from "../api/registry.js";
import { resourceOfKind } from "../api/resources.js";
import type { Clock } from "../clock.js";
import type { StageDocs } from "../kubelet/load.js";
import type { Behavior } from "../model/behavior.js";
import type { FaultBook } from "../model/faults.js";
import type { LogBook } from "../model/logbook.js";
import type { Catalog } from "../model/topology/catalog.js";
import type { Store } from "../store/store.js";
import type { KObject, ResourceType } from "../types.js";
import type { EventRecorder } from "./events.js";
import type { ControllerRuntime } from "./runtime.js";

export interface SimContext {
  store: Store;
  registry: Registry;
  clock: Clock;
  rng: Rng;
  runtime: ControllerRuntime;
  events: EventRecorder;
  /** What containers write (kubectl logs). */
  logs: LogBook;
  /** What runs inside containers; the failure model wraps it. */
  behavior: Behavior;
  /** What Chaos Mesh has injected where (written by src/sim/chaos, read by behavior and exec). */
  faults: FaultBook;
  /** The systems modelled (their topologies), given to the cluster when it is built. */
  catalog: Catalog;
  /** The kubelet's stages, the image registry and the images' contents, given likewise. */
  stages: StageDocs;
}

const cache = new Map<string, ResourceType>();

/** The ResourceType of a built-in kind ("Pod", "Deployment", ...). */
export function R(kind: string): ResourceType {
  let rt = cache.get(kind);
  if (!rt) {
    rt = resourceOfKind(kind);
    if (!rt) throw new Error(`unknown kind ${kind}`);
    cache.set(kind, rt);
  }
  return rt;
}

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
