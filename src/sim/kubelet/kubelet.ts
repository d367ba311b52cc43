// The kubelet of every simulated node: runs the pods bound to a node through the stages of
// src/sim/stages/pod.yaml, probes them, and reports their status. One controller ("kubelet")
// keyed by namespace/name: anyone may enqueue a pod to make the kubelet look at it again (the
// failure model does, when what runs inside a container changes).

import { isDeepStrictEqual } from "node:util";
import { bytes } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { ContainerRef } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import { KUBELET } from "../context/runtime.js";
import { keyOf, splitKey } from "../core/meta.js";
import type { Node, Pod } from "../core/objects.js";
import { moveStamp } from "../core/shown-times.js";
import type { KObject } from "../core/types.js";
import type { PodStagesDoc } from "../stages/load.js";
import { type Stage, StageEngine, type Vars } from "../stages/stage.js";
import { ImageCatalog } from "../userland/images.js";
import { CTR_ACTIONS, logTick, POD_ACTIONS } from "./actions.js";
import { Backoff } from "./backoff.js";
import { processesOf } from "./command.js";
import {
  CTR_FACTS,
  ctrDelay,
  ctrFacts,
  ctrVars,
  DELAYS,
  memoryCheckAt,
  POD_FACTS,
  podFacts,
  podVars,
  refOf,
} from "./facts.js";
import { PodNetwork } from "./network.js";
import { nextProbeAt, runProbes } from "./probes.js";
import {
  CTR_FIELDS,
  type CtrRec,
  fieldPathOf,
  isActive,
  newPodRec,
  POD_FIELDS,
  type PodRec,
  type ProbeKind,
  specOf,
  type Termination,
} from "./records.js";
import type { KubeletState } from "./state.js";
import { buildStatus } from "./status.js";

const MAX_STEPS = 200;
/** How much of a lived-in pod's running is written into its log. */
const LIVED_LOG_MS = 30 * 60_000;

export class Kubelet implements KubeletState {
  readonly cfg: PodStagesDoc;
  readonly engine: StageEngine;
  readonly images: ImageCatalog;
  readonly crash: Backoff;
  readonly pull: Backoff;
  readonly net = new PodNetwork();
  private readonly recs = new Map<string, PodRec>();
  private readonly nodeImages = new Map<string, Set<string>>();

  constructor(readonly ctx: SimContext) {
    // the stages the cluster was built with
    this.cfg = ctx.stages.pod;
    this.engine = new StageEngine(this.cfg.stages, {
      facts: { pod: POD_FACTS, container: CTR_FACTS },
      fields: { pod: POD_FIELDS, container: CTR_FIELDS },
      actions: { pod: Object.keys(POD_ACTIONS), container: Object.keys(CTR_ACTIONS) },
      delays: DELAYS,
    });
    this.images = new ImageCatalog(ctx.stages.images, ctx.publishedImages);
    this.crash = new Backoff(this.cfg.backoff.crash);
    this.pull = new Backoff(this.cfg.backoff.pull);
    // the clock re-based: the times the kubelet keeps as it shows them move with the rest
    ctx.clock.onShift?.((delta) => {
      for (const rec of this.recs.values()) moveShown(rec, delta);
    });
  }

  imageCached(node: string, canonical: string): boolean {
    return this.nodeImages.get(node)?.has(canonical) ?? false;
  }

  cacheImage(node: string, canonical: string): void {
    const set = this.nodeImages.get(node) ?? new Set<string>();
    set.add(canonical);
    this.nodeImages.set(node, set);
  }

  nodeMemory(node: string): number {
    const n = this.ctx.registry.tryGet(R("Node"), undefined, node) as Node | undefined;
    return bytes(n?.status?.capacity?.memory);
  }

  /**
   * A pod restored as started `ms` earlier (a lived-in namespace): its start and its containers'
   * instances move back, so the status the kubelet writes keeps the older times.
   */
  dateBack(key: string, ms: number): void {
    const rec = this.recs.get(key);
    if (!rec) return;
    moveShown(rec, -ms);
    for (const c of rec.ctrs) {
      if (c.inst?.startedAt !== undefined) c.inst.startedAt -= ms;
      if (c.inst?.finishedAt !== undefined) c.inst.finishedAt -= ms;
    }
    // what the containers wrote moves back with them, and the time since is not silent: the
    // last stretch of it is written as the application writes while it runs
    this.ctx.logs.dateBack(rec.uid, ms);
    const pod = this.ctx.store.get(R("Pod"), ...splitKey(key)) as Pod | undefined;
    const now = this.ctx.clock.now();
    const from = now - Math.min(ms / 2, LIVED_LOG_MS);
    if (pod)
      for (const c of rec.ctrs)
        if (!c.init && c.inst?.startedAt !== undefined && !c.inst.terminated)
          for (const l of this.ctx.behavior.pastLines?.(refOf(pod, c, now), from, now) ?? [])
            this.ctx.logs.appendAt(rec.uid, c.name, l.text, l.at);
  }

  /** A pod left the store: release what it held. */
  forget(pod: KObject): void {
    const key = keyOf(pod);
    const rec = this.recs.get(key);
    if (!rec || rec.uid !== pod.metadata.uid) return;
    this.recs.delete(key);
    if (!rec.ipReleased) this.net.release(rec.node, rec.ip);
    this.crash.forget(`${rec.uid}_`);
    this.pull.forget(`${rec.uid}_`);
    this.ctx.logs.forget(rec.uid);
    processesOf(this.ctx).forget(rec.uid);
  }

  reconcile(key: string): void {
    const { registry, clock } = this.ctx;
    const [ns, name] = splitKey(key);
    const pod = registry.tryGet(R("Pod"), ns, name) as Pod | undefined;
    if (!pod?.spec?.nodeName || !registry.tryGet(R("Node"), undefined, pod.spec.nodeName)) return;
    let rec = this.recs.get(key);
    if (rec && rec.uid !== pod.metadata.uid) {
      this.forget({ ...pod, metadata: { ...pod.metadata, uid: rec.uid } });
      rec = undefined;
    }
    if (!rec) {
      // a pod that finished before this kubelet knew it has nothing left to run
      if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
      rec = newPodRec(pod, key);
      this.recs.set(key, rec);
    }
    if (rec.purged) return;
    const now = clock.now();
    if (!this.advance(pod, rec, now)) return;
    this.housekeeping(pod, rec, now);
    const latest = registry.get(R("Pod"), ns, name) as Pod;
    const status = buildStatus(latest, rec, now, clock);
    if (!isDeepStrictEqual(latest.status, status))
      registry.update(R("Pod"), ns, name, { ...latest, status }, { force: true });
    // a finished pod's sandbox is gone: its IP may serve another pod (the status keeps showing it)
    if ((status.phase === "Succeeded" || status.phase === "Failed") && rec.ip && !rec.ipReleased) {
      this.net.release(rec.node, rec.ip);
      rec.ipReleased = true;
    }
    this.wake(pod, rec, now);
  }

  /** Fire every stage that is due, probing running containers in between. False once purged. */
  private advance(pod: Pod, rec: PodRec, now: number): boolean {
    for (let i = 0; i < MAX_STEPS; i++) {
      let fired = false;
      for (const c of rec.ctrs)
        if (c.step === "Running") runProbes(pod, c, specOf(pod, c), now, this.probeDeps(pod, rec, c));
      const ps = this.engine.due(
        "pod",
        rec,
        podFacts(pod, rec),
        now,
        (d) => (this.cfg.timings as unknown as Record<string, number>)[d],
      );
      if (ps) {
        fired = true;
        this.apply(ps, pod, rec, undefined, podVars(pod, rec), now);
        if (rec.purged) return false;
      }
      for (const c of rec.ctrs) {
        const facts = ctrFacts(this, pod, rec, c, now);
        const cs = this.engine.due("container", c, facts, now, (d) => ctrDelay(this, pod, rec, c, d, now));
        if (!cs) continue;
        fired = true;
        this.apply(cs, pod, rec, c, ctrVars(this, pod, rec, c, now), now);
      }
      if (!fired) return true;
    }
    console.error(
      `kubelet: pod ${rec.key} did not settle after ${MAX_STEPS} stages; check the stages for a loop`,
    );
    return true;
  }

  private apply(stage: Stage, pod: Pod, rec: PodRec, c: CtrRec | undefined, vars: Vars, now: number) {
    const events = this.engine.eventsOf(stage, vars);
    Object.assign(c ?? rec, this.engine.nextOf(stage, vars));
    for (const ev of events) {
      const source = { component: ev.source ?? "kubelet", host: rec.node };
      this.ctx.events.record(pod, ev.type, ev.reason, ev.message, source, c ? fieldPathOf(c) : undefined);
    }
    for (const a of stage.actions ?? []) {
      if (c) CTR_ACTIONS[a](this, pod, rec, c, now);
      else POD_ACTIONS[a](this, pod, rec, now);
    }
  }

  private probeDeps(pod: Pod, rec: PodRec, c: CtrRec) {
    return {
      behavior: this.ctx.behavior,
      texts: this.cfg.probes,
      ip: rec.ip ?? "",
      exec: (ref: ContainerRef, kind: ProbeKind, t: number) =>
        processesOf(this.ctx).probes.answer(ref, kind, t),
      unhealthy: (type: "Normal" | "Warning", reason: string, message: string) =>
        this.ctx.events.record(
          pod,
          type,
          reason,
          message,
          { component: "kubelet", host: rec.node },
          fieldPathOf(c),
        ),
    };
  }

  /** Running containers are looked at every housekeeping period: memory, exits, log ticks. */
  private housekeeping(pod: Pod, rec: PodRec, now: number) {
    const running = rec.ctrs.filter((c) => c.step === "Running");
    if (!running.length) {
      rec.nextHousekeeping = undefined;
      return;
    }
    const period = this.cfg.timings.housekeeping;
    if (rec.nextHousekeeping === undefined) rec.nextHousekeeping = now + period;
    else if (now >= rec.nextHousekeeping) {
      for (const c of running) logTick(this, pod, rec, c, now);
      rec.nextHousekeeping = now + period;
    }
  }

  /** Ask to be called again when the next stage, probe, housekeeping or init exit is due. */
  private wake(pod: Pod, rec: PodRec, now: number) {
    const times: (number | undefined)[] = [rec.pending?.due, rec.nextHousekeeping];
    for (const c of rec.ctrs) {
      times.push(c.pending?.due);
      if (!isActive(c)) continue;
      times.push(nextProbeAt(c, specOf(pod, c)));
      if (c.init && c.inst?.startedAt !== undefined) times.push(c.inst.startedAt + (c.inst.startupMs ?? 0));
      if (specOf(pod, c).resources?.limits?.memory) times.push(memoryCheckAt(this, c));
    }
    const future = times.filter((t): t is number => t !== undefined && t > now);
    if (!future.length) return;
    const due = Math.min(...future);
    // one timer per pod; a timer may fire a little early (wall clock rounding): it then re-arms
    if (rec.wakeAt !== undefined && rec.wakeAt <= due) return;
    rec.wakeAt = due;
    this.ctx.clock.after(due - now, () => {
      if (rec.wakeAt === due) rec.wakeAt = undefined;
      this.ctx.runtime.enqueue(KUBELET, rec.key);
    });
  }
}

export function installKubelet(ctx: SimContext): Kubelet {
  const kubelet = new Kubelet(ctx);
  ctx.runtime.register(KUBELET, (key) => kubelet.reconcile(key));
  ctx.store.subscribe((e) => {
    if (e.rt.kind !== "Pod") return;
    if (e.type === "DELETED") kubelet.forget(e.object);
    else if ((e.object as Pod).spec?.nodeName) ctx.runtime.enqueue(KUBELET, keyOf(e.object));
  });
  return kubelet;
}

/** The times a pod's record keeps as they are shown (its start, its containers' ends), `ms` later. */
function moveShown(rec: PodRec, ms: number): void {
  const move = (t?: Termination) =>
    t && { ...t, startedAt: moveStamp(t.startedAt, ms), finishedAt: moveStamp(t.finishedAt, ms) };
  if (rec.startTime) rec.startTime = moveStamp(rec.startTime, ms);
  for (const c of rec.ctrs) {
    c.prev = move(c.prev);
    if (c.inst) c.inst.terminated = move(c.inst.terminated);
  }
}
