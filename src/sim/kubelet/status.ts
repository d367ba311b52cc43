// The pod status the kubelet reports, computed from its records as the kubelet's
// generateAPIPodStatus does: container states, conditions with their transition times, phase.

import { qosClass } from "../api/defaults.js";
import { type Clock, stamp } from "../core/clock.js";
import type {
  Condition,
  ContainerState,
  ContainerStatus,
  Pod,
  PodStatus,
  ReadinessGate,
} from "../core/objects.js";
import { type CtrRec, type CtrSpec, initDone, isActive, isSidecar, type PodRec, specOf } from "./records.js";

/** The status the kubelet writes; its conditions carry lastProbeTime: null, as the kubelet's do. */
type BuiltStatus = Omit<PodStatus, "conditions"> & { conditions?: Condition[] };
type BuiltCtrStatus = ContainerStatus & { state: ContainerState; lastState: ContainerState };

function containerStatus(c: CtrRec, spec: CtrSpec, clock: Clock): BuiltCtrStatus {
  const inst = c.inst;
  const dead = inst?.terminated;
  let state: ContainerState;
  let last: ContainerState = c.prev ? { terminated: c.prev } : {};
  if (isActive(c)) state = { running: { startedAt: stamp(clock, inst!.startedAt!) } };
  else if (dead && (c.step === "Exited" || c.step === "Done" || !c.reason)) state = { terminated: dead };
  else {
    state = {
      waiting: { reason: c.reason || "ContainerCreating", ...(c.message ? { message: c.message } : {}) },
    };
    if (dead) last = { terminated: dead };
  }
  const running = isActive(c);
  // an init container is ready once it succeeded, not while it runs (prober_manager's
  // UpdatePodStatus); a sidecar (restartable init container) as any container, by its probe
  const ready = c.init && !isSidecar(spec) ? !!dead && dead.exitCode === 0 && !running : running && c.ready;
  return {
    name: c.name,
    state,
    lastState: last,
    ready,
    restartCount: c.restartCount,
    image: inst?.imageName ?? spec.image,
    imageID: inst?.imageID ?? "",
    ...(inst ? { containerID: `containerd://${inst.id}` } : {}),
    started: running && c.started,
  };
}

/** The phase, as the kubelet's getPhase decides it from the container statuses. */
function phaseOf(pod: Pod, rec: PodRec, statuses: BuiltCtrStatus[]): string {
  const policy = pod.spec.restartPolicy ?? "Always";
  for (const c of rec.ctrs.filter((x) => x.init)) {
    const spec = specOf(pod, c);
    if (initDone(c, spec)) continue;
    const failedForGood = c.step === "Done" && (c.inst?.terminated?.exitCode ?? 0) !== 0;
    return failedForGood && !isSidecar(spec) ? "Failed" : "Pending";
  }
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const s of statuses) {
    if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.lastState.terminated) stopped++;
    else waiting++;
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped > 0) {
    if (policy === "Always") return "Running";
    if (stopped === succeeded) return "Succeeded";
    return policy === "OnFailure" ? "Running" : "Failed";
  }
  return "Pending";
}

export function buildStatus(pod: Pod, rec: PodRec, now: number, clock: Clock): BuiltStatus {
  const old: BuiltStatus = pod.status ?? {};
  const at = stamp(clock, now);
  const cond = (type: string, ok: boolean, reason?: string, message?: string): Condition => {
    const status = ok ? "True" : "False";
    const prev = (old.conditions ?? []).find((c: Condition) => c.type === type);
    const lastTransitionTime = prev && prev.status === status ? prev.lastTransitionTime : at;
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime,
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    };
  };
  const inits = rec.ctrs.filter((c) => c.init);
  const apps = rec.ctrs.filter((c) => !c.init);
  const initStatuses = inits.map((c) => containerStatus(c, specOf(pod, c), clock));
  const appStatuses = apps.map((c) => containerStatus(c, specOf(pod, c), clock));
  const phase = phaseOf(pod, rec, appStatuses);
  const terminal = phase === "Succeeded" || phase === "Failed";

  const pendingInit = inits.filter((c) => !initDone(c, specOf(pod, c))).map((c) => c.name);
  const unready = apps.filter((c) => !(isActive(c) && c.ready)).map((c) => c.name);
  const readyReason = terminal ? "PodCompleted" : "ContainersNotReady";
  const readyMsg = terminal ? undefined : `containers with unready status: [${unready.join(" ")}]`;
  const scheduled =
    (old.conditions ?? []).find((c: Condition) => c.type === "PodScheduled") ?? cond("PodScheduled", true);
  // readiness gates are conditions other controllers set; the pod is Ready only with them True
  const gates = (pod.spec.readinessGates ?? [])
    .map((g: ReadinessGate) => g.conditionType)
    .filter(
      (t: string) => !(old.conditions ?? []).some((c: Condition) => c.type === t && c.status === "True"),
    );
  const ready =
    unready.length || terminal
      ? cond("Ready", false, readyReason, readyMsg)
      : gates.length
        ? cond(
            "Ready",
            false,
            "ReadinessGatesNotReady",
            `corresponding condition of pod readiness gate "${gates[0]}" does not exist.`,
          )
        : cond("Ready", true);
  const mine = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
  const conditions = [
    cond("PodReadyToStartContainers", rec.sandbox && !terminal),
    pendingInit.length
      ? cond(
          "Initialized",
          false,
          "ContainersNotInitialized",
          `containers with incomplete status: [${pendingInit.join(" ")}]`,
        )
      : cond("Initialized", true),
    ready,
    unready.length || terminal
      ? cond("ContainersReady", false, readyReason, readyMsg)
      : cond("ContainersReady", true),
    scheduled,
    ...(old.conditions ?? []).filter((c: Condition) => !mine.includes(c.type)),
  ];
  const ips = rec.ip ? { podIP: rec.ip, podIPs: [{ ip: rec.ip }] } : {};
  return {
    phase,
    conditions,
    hostIP: rec.hostIP,
    hostIPs: rec.hostIP ? [{ ip: rec.hostIP }] : [],
    ...ips,
    startTime: rec.startTime,
    ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: appStatuses,
    qosClass: old.qosClass ?? qosClass(pod.spec),
  };
}
