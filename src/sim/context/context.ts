// What every component of the embedded cluster is given: the store and API registry, the clock,
// the controller runtime and event recorder, and the shared books (container logs, injected
// faults), the workloads' Behavior and the data the cluster was built with (topologies, stages).
// It lives below every component that reads it (kubelet, exec, workloads, metrics, chaos,
// controllers), so none of them needs another's folder to be handed the cluster.

import type { Rng } from "../../util/rng.js";
import type { Registry } from "../api/registry.js";
import type { Clock } from "../core/clock.js";
import type { StageDocs } from "../stages/load.js";
import type { Store } from "../store/store.js";
import type { InClusterApi } from "./apiserver.js";
import type { Behavior } from "./behavior.js";
import type { Catalog } from "./catalog.js";
import type { EventRecorder } from "./events.js";
import type { FaultBook } from "./faults.js";
import type { LogBook } from "./logbook.js";
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
  /**
   * A random stream of its own for a component, from the cluster's seed: what it draws (names,
   * uids of the objects it makes) does not move what the others draw.
   */
  stream(label: string): Rng;
  /** Images that count as published whatever the registry catalog says: the systems' own. */
  publishedImages: readonly string[];
  /** The API server as a container reaches it (kubectl in a pod); set by the cluster. */
  apiserver?: InClusterApi;
}
