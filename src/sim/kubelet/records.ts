// What the kubelet remembers about each pod it runs: the pod's own progress and, per container,
// the lifecycle step, the current instance and the one before it. The pod status is computed
// from this (status.ts); the stages move it (kubelet.ts).

import type { Container, Pod } from "../core/objects.js";
import type { Subject } from "../stages/stage.js";

/** The probes a container can have, and what the kubelet remembers of each (probes.ts runs them). */
export type ProbeKind = "startup" | "readiness" | "liveness";
export type ProbeResult = "unknown" | "pass" | "fail";

export interface ProbeState {
  lastTick: number;
  successes: number;
  failures: number;
  result: ProbeResult;
}

export interface Termination {
  exitCode: number;
  reason: string;
  /** From terminationMessagePath (or the log tail with FallbackToLogsOnError). */
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export interface Instance {
  id: string;
  /** The spec image this instance was created from. */
  image: string;
  imageName: string;
  imageID: string;
  startedAt?: number;
  /** Behavior's startup time, fixed when the instance starts. */
  startupMs?: number;
  finishedAt?: number;
  terminated?: Termination;
  probes?: Record<ProbeKind, ProbeState>;
}

export interface CtrRec extends Subject {
  name: string;
  init: boolean;
  index: number;
  step: string;
  /** The waiting reason and message shown while the container does not run. */
  reason: string;
  message: string;
  ready: boolean;
  started: boolean;
  /** How the current instance ends once stopped (set by the stage that stops it). */
  exitReason?: string;
  exitCode?: number;
  restartCount: number;
  inst?: Instance;
  /** How the instance before `inst` ended (lastState while `inst` runs). */
  prev?: Termination;
}

export interface PodRec extends Subject {
  uid: string;
  key: string;
  node: string;
  admitted: boolean;
  sandbox: boolean;
  ip?: string;
  /** The IP went back to the pool when the pod finished. */
  ipReleased?: boolean;
  hostIP?: string;
  startTime?: string;
  ctrs: CtrRec[];
  /** When the pending wake-up timer fires (undefined once it fired). */
  wakeAt?: number;
  nextHousekeeping?: number;
  purged?: boolean;
}

/** Fields the stages may set (checked when pod.yaml is loaded). */
export const POD_FIELDS = ["admitted", "sandbox"] as const;
export const CTR_FIELDS = [
  "step",
  "reason",
  "message",
  "ready",
  "started",
  "exitReason",
  "exitCode",
] as const;

/** A container's spec as the kubelet reads it: the API server refused one without an image. */
export type CtrSpec = Container & { image: string };

export function newPodRec(pod: Pod, key: string): PodRec {
  const mk = (c: Container, init: boolean, index: number): CtrRec => ({
    name: c.name,
    init,
    index,
    step: "New",
    reason: "",
    message: "",
    ready: false,
    started: false,
    restartCount: 0,
  });
  return {
    uid: pod.metadata.uid!,
    key,
    // the kubelet keeps records only for bound pods (Kubelet.reconcile)
    node: pod.spec.nodeName!,
    admitted: false,
    sandbox: false,
    ctrs: [
      ...(pod.spec.initContainers ?? []).map((c: Container, i: number) => mk(c, true, i)),
      ...(pod.spec.containers ?? []).map((c: Container, i: number) => mk(c, false, i)),
    ],
  };
}

export function specOf(pod: Pod, c: CtrRec): CtrSpec {
  const spec = (c.init ? pod.spec.initContainers : pod.spec.containers)?.[c.index] as CtrSpec | undefined;
  // a pod's containers are immutable (validate.ts), so the record's index finds its spec
  return spec ?? ({} as CtrSpec);
}

export const fieldPathOf = (c: CtrRec) => `spec.${c.init ? "initContainers" : "containers"}{${c.name}}`;

/** An init container that restarts always is a sidecar: it counts as done once started. */
export const isSidecar = (spec: CtrSpec) => spec?.restartPolicy === "Always";

/** An init container that let the next one start. */
export function initDone(c: CtrRec, spec: CtrSpec): boolean {
  if (isSidecar(spec)) return c.started || c.prev !== undefined;
  return c.step === "Done" && c.inst?.terminated?.exitCode === 0;
}

export const isActive = (c: CtrRec) => c.step === "Running" || c.step === "Stopping";
