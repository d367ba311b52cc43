// The seam between the shared experiment controller and each kind's implementation (Chaos Mesh's
// ChaosImpl): Apply and Recover for one record, returning whether it worked. Chaos Mesh finds a
// record's pod by name each time; the controller also hands over what it remembered when it
// injected (the pod's uid, the container's id), since a pod of the same name may be another pod.

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import type { Fault, FaultBook } from "../context/faults.js";
import type { ContainerStatus, Pod } from "../core/objects.js";
import type { ChaosObject, ChaosRecord, ChaosStatus } from "./spec.js";

export interface Target {
  /** The record id: "ns/pod" or "ns/pod/container". */
  id: string;
  selectorKey: string;
  ns: string;
  podName: string;
  container?: string;
  /** The pod of that name now, if any (not necessarily the one injected). */
  pod?: Pod;
}

/** What the controller remembers about an injection (chaos-daemon's view of it). */
export interface Injection {
  podUid: string;
  /** The container instance injected into (containerd id), for container-scoped kinds. */
  containerId?: string;
}

export interface ApplyEnv {
  ctx: SimContext;
  chaos: ChaosObject;
  /** FaultBook source of this object. */
  source: string;
  now: number;
  /** The object's status, to write kind-specific fields (instances) into. */
  status: ChaosStatus;
  /** Every record of the experiment (NetworkChaos pairs sources and targets). */
  records: ChaosRecord[];
}

export type Outcome = { ok: true; injection?: Injection } | { ok: false; error: string };

export interface Applier {
  apply(env: ApplyEnv, t: Target): Outcome;
  recover(env: ApplyEnv, t: Target, injected: Injection | undefined): Outcome;
}

export const fail = (error: string): Outcome => ({ ok: false, error });
export const ok = (injection?: Injection): Outcome => ({ ok: true, injection });

export function targetOf(ctx: SimContext, id: string, selectorKey: string): Target {
  const [ns, podName, container] = id.split("/");
  const pod = ctx.store.get(R("Pod"), ns, podName) as Pod | undefined;
  return { id, selectorKey, ns, podName, container, pod };
}

export const notFound = (t: Target) => `pods "${t.podName}" not found`;

/** The container's status entry in its pod, if it runs now. */
export function runningStatus(
  pod: Pod | undefined,
  container: string | undefined,
): ContainerStatus | undefined {
  const st = (pod?.status?.containerStatuses ?? []).find((s: ContainerStatus) => s.name === container);
  return st?.state?.running ? st : undefined;
}

/** The injected pod is still there (same uid; a terminating pod still runs its processes). */
export const samePod = (t: Target, inj: Injection | undefined) =>
  !!t.pod && !!inj && t.pod.metadata.uid === inj.podUid;

/**
 * The FaultBook keeps one record per pod, source and fault kind, so a container-scoped kind
 * hitting several containers of one pod keeps them in that record's `containers` list.
 */
export function addContainer(
  faults: FaultBook,
  source: string,
  podUid: string,
  container: string,
  fault: Fault,
  since: number,
) {
  const existing = faults.forPod(podUid).find((r) => r.source === source && r.fault.kind === fault.kind);
  const prev = (existing?.fault as { containers?: string[] } | undefined)?.containers ?? [];
  const containers = [...new Set([...prev, container])];
  faults.add({ source, podUid, fault: { ...fault, containers } as Fault, since: existing?.since ?? since });
}

export function removeContainer(
  faults: FaultBook,
  source: string,
  podUid: string,
  container: string,
  kind: Fault["kind"],
) {
  const existing = faults.forPod(podUid).find((r) => r.source === source && r.fault.kind === kind);
  if (!existing) return;
  const left = ((existing.fault as { containers?: string[] }).containers ?? []).filter(
    (c) => c !== container,
  );
  faults.remove(source, podUid);
  // other kinds this source injected into the pod stay (a source has one kind, so none in practice)
  if (left.length) faults.add({ ...existing, fault: { ...existing.fault, containers: left } as Fault });
}
