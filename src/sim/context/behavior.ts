// The seam between the kubelet and what runs inside containers. The kubelet owns the Kubernetes
// lifecycle (scheduling, pulling, starting, probing, restarting, terminating); a Behavior says
// what the workload does: how long it takes to start, whether its probe passes, what it uses and
// writes. The generic behavior serves any manifest; the failure model (systems' topologies and
// Chaos Mesh effects) refines it without touching the kubelet.

import type { Container, Probe } from "../core/objects.js";
import type { KObject } from "../core/types.js";

export interface ContainerRef {
  pod: KObject;
  /** The container's spec from the pod. */
  container: Container;
  /** Cluster ms when this instance of the container started. */
  startedAt: number;
  restartCount: number;
}

export interface Usage {
  cpuMilli: number;
  memoryBytes: number;
  /** CPU ms one unit of work (a request) takes, and how many come per second: the bursts a CFS quota throttles. */
  burstMs?: number;
  burstsPerSec?: number;
}

/** What a probe's connection to the pod reaches (httpGet, tcpSocket and grpc handlers). */
export type ProbeReach =
  /** Nothing listens on the port: the kernel refuses the connection. */
  | { kind: "refused" }
  /** Something listens and speaks the handler's protocol (a TCP connect, a gRPC health service). */
  | { kind: "open" }
  /** An HTTP server answered with this status. */
  | { kind: "http"; status: number }
  /** What listens speaks another protocol: the prober's client error (Go's net/http text). */
  | { kind: "garbled"; error: string };

export interface Behavior {
  /** Cluster ms from start until the application can answer its readiness probe. */
  startupMs(ref: ContainerRef): number;
  /** Whether the readiness probe passes now (called only after startup). */
  probeOk(ref: ContainerRef, now: number): boolean;
  /** Why a probe that probeOk failed got no answer in time ("timeout"), if that is why. */
  probeTimedOut?(ref: ContainerRef, now: number): boolean;
  /**
   * What a network probe (not exec) reaches in the pod now: who listens on its port and what it
   * answers. Undefined: the behavior does not model the pod's listeners (probeOk alone decides).
   */
  probeReach?(ref: ContainerRef, probe: Probe, now: number): ProbeReach | undefined;
  /** CPU and memory the container uses now (before limits are enforced by the kubelet). */
  usage(ref: ContainerRef, now: number): Usage;
  /** Exit code if the process exits on its own by `now` (e.g. a command that fails), else undefined. */
  exitCode?(ref: ContainerRef, now: number): number | undefined;
  /** Lines the application writes at a lifecycle moment. */
  logLines(ref: ContainerRef, moment: "start" | "ready" | "tick" | "stop", now: number): string[];
  /**
   * What the running application wrote between `from` and `to`, each line with its instant, as
   * it writes while it runs (a lived-in pod's past). Undefined or empty: nothing is known.
   */
  pastLines?(ref: ContainerRef, from: number, to: number): { at: number; text: string }[];
}
