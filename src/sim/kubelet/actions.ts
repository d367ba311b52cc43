// The hooks stages may name in `actions`: the parts of a transition that are not field values
// (allocating an IP, creating a container instance, writing logs, the back-off bookkeeping).

import { R } from "../api/resources.js";
import { stamp } from "../core/clock.js";
import { internalIP } from "../core/meta.js";
import type { Node, Pod } from "../core/objects.js";
import { createContainerEnv } from "../userland/env.js";
import { createMysqldOptions } from "../userland/mysqld-options.js";
import { runtimeOf } from "../userland/toolbox.js";
import { terminationOf } from "./command-exit.js";
import { crashKey, pullKey, refOf } from "./facts.js";
import { freshProbes, probeOf } from "./probes.js";
import { type CtrRec, type PodRec, specOf } from "./records.js";
import type { KubeletState } from "./state.js";

/** containerd's started_at of a task that never started (0), as the kubelet passes it on. */
const NEVER_STARTED = "1970-01-01T00:00:00Z";

type PodAction = (k: KubeletState, pod: Pod, rec: PodRec, now: number) => void;
type CtrAction = (k: KubeletState, pod: Pod, rec: PodRec, c: CtrRec, now: number) => void;

export const POD_ACTIONS: Record<string, PodAction> = {
  admit(k, _pod, rec, now) {
    const node = k.ctx.registry.tryGet(R("Node"), undefined, rec.node) as Node | undefined;
    rec.hostIP = node ? internalIP(node) : undefined;
    rec.startTime = stamp(k.ctx.clock, now);
  },
  allocateIP(k, pod, rec) {
    const node = k.ctx.registry.tryGet(R("Node"), undefined, rec.node) as Node | undefined;
    if (pod.spec.hostNetwork) rec.ip = rec.hostIP;
    else if (node) rec.ip = k.net.allocate(node);
  },
  purge(k, pod, rec) {
    rec.purged = true;
    k.ctx.registry.delete(R("Pod"), pod.metadata.namespace, pod.metadata.name!, { gracePeriodSeconds: 0 });
  },
};

function log(
  k: KubeletState,
  pod: Pod,
  rec: PodRec,
  c: CtrRec,
  moment: "start" | "ready" | "tick" | "stop",
  now: number,
) {
  for (const line of k.ctx.behavior.logLines(refOf(pod, c, now), moment, now))
    k.ctx.logs.append(rec.uid, c.name, line);
}

export const CTR_ACTIONS: Record<string, CtrAction> = {
  cacheImage(k, pod, rec, c) {
    const ref = k.images.lookup(specOf(pod, c).image).ref;
    if (ref) k.cacheImage(rec.node, ref.canonical);
  },
  pullBackOffNext(k, pod, rec, c, now) {
    k.pull.next(pullKey(rec, specOf(pod, c).image), now, now);
  },
  crashBackOffNext(k, pod, rec, c, now) {
    k.crash.next(crashKey(rec, c, specOf(pod, c).image), c.inst?.finishedAt ?? now, now);
  },
  create(k, pod, _rec, c) {
    const image = specOf(pod, c).image;
    const info = k.images.lookup(image);
    if (c.inst) {
      c.prev = c.inst.terminated;
      c.restartCount++;
    }
    c.inst = {
      id: k.ctx.rng.chars(64, "0123456789abcdef"),
      image,
      imageName: info.ref?.canonical ?? image,
      imageID: info.imageID,
    };
    // generateContainerConfig: the environment is composed when the container is created
    createContainerEnv(k.ctx, pod, specOf(pod, c), c.restartCount);
    // and a MySQL server reads its option files as it starts
    if (runtimeOf(specOf(pod, c)) === "mysqld")
      createMysqldOptions(k.ctx, pod, specOf(pod, c), c.restartCount);
  },
  start(k, pod, rec, c, now) {
    const inst = c.inst!;
    inst.startedAt = now;
    inst.startupMs = k.ctx.behavior.startupMs(refOf(pod, c, now));
    inst.probes = freshProbes(now);
    c.ready = false;
    // without a startup probe a container counts as started at once (readiness probes begin now)
    c.started = !probeOf(specOf(pod, c), "startup");
    k.ctx.logs.restart(rec.uid, c.name);
    log(k, pod, rec, c, "start", now);
  },
  terminate(k, pod, _rec, c, now) {
    const inst = c.inst!;
    inst.finishedAt = now;
    // the termination message file (or log tail), and a process that could not start
    const extra = terminationOf(k.ctx, refOf(pod, c, now), Number(c.exitCode ?? 0));
    inst.terminated = {
      exitCode: extra.exitCode ?? Number(c.exitCode ?? 0),
      reason: extra.reason ?? c.exitReason ?? "Completed",
      ...(extra.message ? { message: extra.message } : {}),
      // a process that never started has containerd's zero start time (1970, as describe shows it)
      startedAt: inst.startedAt === undefined ? NEVER_STARTED : stamp(k.ctx.clock, inst.startedAt),
      finishedAt: stamp(k.ctx.clock, now),
      containerID: `containerd://${inst.id}`,
    };
    c.ready = false;
    c.started = false;
  },
  logStop(k, pod, rec, c, now) {
    log(k, pod, rec, c, "stop", now);
  },
  logReady(k, pod, rec, c, now) {
    log(k, pod, rec, c, "ready", now);
  },
};

export function logTick(k: KubeletState, pod: Pod, rec: PodRec, c: CtrRec, now: number) {
  log(k, pod, rec, c, "tick", now);
}
