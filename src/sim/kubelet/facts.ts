// What the stages select on (facts), how long they wait (delays), and what their templates may
// say (variables), computed from the pod, the kubelet's records and the Behavior seam.
import { createHash } from "node:crypto";
import { bytes } from "../../util/quantity.js";
import { qosClass } from "../api/defaults.js";
import type { ContainerRef } from "../context/behavior.js";
import type { Pod } from "../core/objects.js";
import type { Facts, Vars } from "../stages/stage.js";
import { handlesTerm, pid1Exit } from "../userland/toolbox.js";
import { goDuration } from "./backoff.js";
import { startFailureOf } from "./command.js";
import { probeFact } from "./probes.js";
import { type CtrRec, type CtrSpec, initDone, isActive, isSidecar, type PodRec, specOf } from "./records.js";
import type { KubeletState } from "./state.js";

export const POD_FACTS = ["admitted", "sandbox", "deleting", "active"] as const;
export const CTR_FACTS = [
  ...[
    "step",
    "init",
    "hasInit",
    "turn",
    "deleting",
    "image",
    "oom",
    "exit",
    "startup",
    "readiness",
    "liveness",
  ],
  ...["ready", "started", "specChanged", "restart", "crashBackOff", "backOffResync", "startFails"],
] as const;

/**
 * How soon the pod worker syncs a pod again after a sync that failed, as one in crash back-off
 * does (pkg/kubelet/pod_workers.go completeWork: backOffPeriod, 10 s); each such sync records
 * BackOff again, so the event's count and last time keep up while the back-off lasts.
 */
export const POD_WORKER_BACKOFF_MS = 10_000;
export const DELAYS = [
  "sandbox",
  "pull",
  "pullFail",
  "create",
  "start",
  "stop",
  "sync",
  "pullBackOff",
  "crashBackOff",
] as const;

/**
 * The crash back-off key (getStableKey): pod, container and the container's spec hash, so a
 * container whose spec changed (a new image: pod-failure's pause and back) starts without waiting.
 */
export const crashKey = (rec: PodRec, c: CtrRec, image: string) =>
  `${rec.uid}_${c.init ? "init:" : ""}${c.name}_${image}`;
export const pullKey = (rec: PodRec, image: string) => `${rec.uid}_${image}`;

export function refOf(pod: Pod, c: CtrRec, now: number): ContainerRef {
  return {
    pod,
    container: specOf(pod, c),
    startedAt: c.inst?.startedAt ?? now,
    restartCount: c.restartCount,
  };
}

export function podFacts(pod: Pod, rec: PodRec): Facts {
  return {
    admitted: rec.admitted,
    sandbox: rec.sandbox,
    deleting: !!pod.metadata.deletionTimestamp,
    active: rec.ctrs.some(isActive),
  };
}

function imageFact(k: KubeletState, rec: PodRec, spec: CtrSpec): string {
  const info = k.images.lookup(spec.image);
  if (info.availability === "invalid") return "invalid";
  const cached = k.imageCached(rec.node, info.ref!.canonical);
  if (spec.imagePullPolicy === "Never") return cached ? "cached" : "never";
  if (cached) return spec.imagePullPolicy === "Always" ? "present" : "cached";
  return info.availability;
}

/** The exit code of a running instance that ends on its own, if it does by now. */
function exitNow(k: KubeletState, pod: Pod, c: CtrRec, spec: CtrSpec, now: number): number | undefined {
  const code = k.ctx.behavior.exitCode?.(refOf(pod, c, now), now);
  if (code !== undefined) return code;
  // an init container does its work in its startup time, then succeeds
  if (c.init && !isSidecar(spec) && now - c.inst!.startedAt! >= (c.inst!.startupMs ?? 0)) return 0;
  return undefined;
}

/** A new container allocates as it starts: its memory is first held against the limit a housekeeping period later. */
export const memoryCheckAt = (k: KubeletState, c: CtrRec) =>
  (c.inst?.startedAt ?? 0) + k.cfg.timings.housekeeping;

function restartAfterExit(pod: Pod, c: CtrRec, spec: CtrSpec): boolean {
  const code = c.inst?.terminated?.exitCode ?? 0;
  const policy = pod.spec.restartPolicy ?? "Always";
  if (c.init) return isSidecar(spec) || (code !== 0 && policy !== "Never");
  return policy === "Always" || (policy === "OnFailure" && code !== 0);
}

export function ctrFacts(k: KubeletState, pod: Pod, rec: PodRec, c: CtrRec, now: number): Facts {
  const spec = specOf(pod, c);
  const inits = rec.ctrs.filter((x) => x.init);
  const before = c.init ? inits.slice(0, c.index) : inits;
  const running = c.step === "Running";
  const limit = bytes(spec.resources?.limits?.memory);
  const code = running ? exitNow(k, pod, c, spec, now) : undefined;
  return {
    step: c.step,
    init: c.init,
    hasInit: inits.length > 0,
    turn: rec.sandbox && before.every((x) => initDone(x, specOf(pod, x))),
    deleting: !!pod.metadata.deletionTimestamp,
    image: imageFact(k, rec, spec),
    oom:
      running &&
      limit > 0 &&
      now >= memoryCheckAt(k, c) &&
      k.ctx.behavior.usage(refOf(pod, c, now), now).memoryBytes > limit,
    exit: code === undefined ? "none" : code === 0 ? "ok" : "fail",
    startup: probeFact(c, spec, "startup"),
    readiness: probeFact(c, spec, "readiness"),
    liveness: probeFact(c, spec, "liveness"),
    ready: c.ready,
    started: c.started,
    specChanged: !!c.inst && c.inst.image !== spec.image,
    // runc cannot exec the command (a shell in a distroless image): StartError
    startFails: c.step === "Created" && !!startFailureOf(k.ctx, pod, spec, c.restartCount),
    restart: c.step === "Exited" && restartAfterExit(pod, c, spec),
    crashBackOff:
      c.inst?.finishedAt !== undefined &&
      k.crash.leftSince(crashKey(rec, c, spec.image), c.inst.finishedAt, now) > 0,
    // in back-off for longer than the pod worker waits: it syncs (and records BackOff) before then
    backOffResync:
      c.step === "CrashBackOff" &&
      c.inst?.finishedAt !== undefined &&
      k.crash.leftSince(crashKey(rec, c, spec.image), c.inst.finishedAt, now) > POD_WORKER_BACKOFF_MS,
    // a different image restarts whatever the container waits for
    sig: spec.image,
  };
}

export function ctrDelay(
  k: KubeletState,
  pod: Pod,
  rec: PodRec,
  c: CtrRec,
  name: string,
  now: number,
): number {
  const t = k.cfg.timings;
  const spec = specOf(pod, c);
  switch (name) {
    case "pull": {
      const info = k.images.lookup(spec.image);
      return info.ref && k.imageCached(rec.node, info.ref.canonical) ? t.pull.cached : t.pull[info.size];
    }
    case "stop": {
      // SIGTERM, then SIGKILL when the grace period is over (kuberuntime killContainer): a PID 1
      // with no SIGTERM handler is not sent it by the kernel and lasts the whole grace period
      // (never under 2 s: kuberuntime_container.go's minimumGracePeriodInSeconds)
      const grace = Math.max(2, graceOf(pod) ?? 30) * 1000;
      return handlesTerm(spec) ? Math.min(t.stop, grace) : grace;
    }
    case "pullBackOff":
      return k.pull.leftSinceUpdate(pullKey(rec, spec.image), now);
    case "crashBackOff":
      return k.crash.leftSince(crashKey(rec, c, spec.image), c.inst?.finishedAt ?? now, now);
    default:
      return (t as unknown as Record<string, number>)[name];
  }
}

const graceOf = (pod: Pod) =>
  pod.metadata.deletionTimestamp
    ? pod.metadata.deletionGracePeriodSeconds
    : pod.spec.terminationGracePeriodSeconds;

/** How a container the kubelet stops ends: its SIGTERM handler's exit code (0 reads Completed), or 137 from the grace period's SIGKILL. */
function stopExit(spec: CtrSpec): { code: number; reason: string } {
  const code = pid1Exit(spec, "TERM");
  if (code === undefined) return { code: 137, reason: "Error" };
  return { code, reason: code === 0 ? "Completed" : "Error" };
}

export function podVars(pod: Pod, rec: PodRec): Vars {
  return { pod: pod.metadata.name, namespace: pod.metadata.namespace, uid: rec.uid, node: rec.node };
}

export function ctrVars(k: KubeletState, pod: Pod, rec: PodRec, c: CtrRec, now: number): Vars {
  const spec = specOf(pod, c);
  const info = k.images.lookup(spec.image);
  const usage = k.ctx.behavior.usage(refOf(pod, c, now), now).memoryBytes;
  const limit = bytes(spec.resources?.limits?.memory);
  const seed = createHash("sha256")
    .update(c.inst?.id ?? c.name)
    .digest();
  // memory.max counts the whole cgroup: the victim's anonymous pages are what is left after its
  // mapped files (the program's text and libraries), page tables and the kernel's share, so
  // anon-rss falls a little short of the limit (mm/oom_kill.c dump of the killed task)
  const charged = (limit > 0 ? Math.min(usage, limit) : usage) / 1024;
  const fileRssKb = Math.round(Math.min(charged * 0.1, 1024 + (seed.readUInt16BE(2) % 6144)));
  const rssKb = Math.max(0, Math.round(charged - fileRssKb - charged / 256 - (seed.readUInt16BE(4) % 512)));
  return {
    ...podVars(pod, rec),
    container: c.name,
    image: spec.image,
    imageName: info.ref?.canonical ?? spec.image,
    imageBytes: info.bytes,
    pullTime: goDuration(ctrDelay(k, pod, rec, c, "pull", now)),
    pullError: info.error,
    backoff: goDuration(k.crash.current(crashKey(rec, c, spec.image))),
    exitCode: (c.step === "Running" ? exitNow(k, pod, c, spec, now) : undefined) ?? c.exitCode ?? 1,
    stopCode: stopExit(spec).code,
    stopReason: stopExit(spec).reason,
    process: String(spec.command?.[0] ?? info.process ?? info.ref?.name.split("/").pop() ?? c.name)
      .split("/")
      .pop(),
    pid: 1000 + (seed.readUInt16BE(0) % 30000),
    rssKb,
    fileRssKb,
    vmKb: rssKb * 3 + 24576,
    pgtablesKb: Math.max(4, Math.round(rssKb / 256)),
    oomScoreAdj: oomScoreAdj(pod, spec, k.nodeMemory(rec.node)),
    // the start-failed stage fires from Created: only then is the reason read
    startError: c.step === "Created" ? (startFailureOf(k.ctx, pod, spec, c.restartCount) ?? "") : "",
  };
}

/** The kubelet's oom_score_adj for a container (pkg/kubelet/qos/policy.go). */
function oomScoreAdj(pod: Pod, spec: CtrSpec, nodeMemory: number): number {
  const qos = qosClass(pod.spec);
  if (qos === "Guaranteed") return -997;
  if (qos === "BestEffort") return 1000;
  const req = bytes(spec.resources?.requests?.memory);
  const adj = 1000 - Math.floor((1000 * req) / Math.max(1, nodeMemory));
  return Math.min(999, Math.max(2, adj));
}
