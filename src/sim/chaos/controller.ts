// The experiment controller shared by the four kinds: Chaos Mesh 2.x's pipeline of small
// controllers (initFinalizers, desiredphase, records, conditions, cleanFinalizers) run in one
// reconcile, writing the object once, with the events each of them records, in their order.
//   finalizer  `chaos-mesh/records` on creation; removed once every record is "Not Injected"
//              after deletion (or at once with the cleanFinalizer=forced annotation).
//   desired    Stop when deleted, when `duration` since creation is up (TimeUp), or paused;
//              else Run. One-shot actions (pod-kill, container-kill) always Run.
//   records    selected once, when the experiment starts; each is applied while Run and
//              recovered while Stop; a failure is retried with back-off (Failed events).

import { parseGoDuration } from "../../util/duration.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { parseStamp, stamp } from "../core/clock.js";
import type { KObject } from "../core/types.js";
import { type Applier, type ApplyEnv, type Injection, targetOf } from "./applier.js";
import { selectTargets } from "./select.js";
import {
  type ChaosObject,
  type ChaosRecord,
  type ChaosStatus,
  CLEAN_FINALIZER_ANNOTATION,
  FINALIZER,
  isDeleting,
  isOneShot,
  isPaused,
  sourceOf,
} from "./spec.js";
import { conditionsOf, opFor, pushRecordEvent } from "./status.js";

export const CHAOS_CONTROLLER = "chaos-mesh";
const RETRY_MS = { initial: 1000, max: 60_000 };

interface Backoff {
  ms: number;
  at: number;
  desired: string;
  /** A timer is pending (a wall-clock timer may fire a little early: then it is re-armed). */
  armed: boolean;
}

type Ev = [component: string, type: "Normal" | "Warning", reason: string, message: string];

export class ExperimentController {
  /** chaos uid -> record id -> what was injected (chaos-daemon's side of it). */
  private readonly injections = new Map<string, Map<string, Injection>>();
  /** key -> back-off after a failed apply/recover: the current delay, when, and for which phase. */
  private readonly retries = new Map<string, Backoff>();
  /** Keys with a duration timer pending (one at a time; it re-arms if it fired early). */
  private readonly timed = new Set<string>();

  constructor(
    private readonly ctx: SimContext,
    private readonly appliers: Record<string, Applier>,
    /** Told when an object left the store, to drop what it held. */
    private readonly onGone: (source: string) => void = () => {},
  ) {}

  /** Key: "<Kind>|<ns>/<name>". */
  reconcile(key: string): void {
    const [kind, nsName] = key.split("|");
    const [ns, name] = nsName.split("/");
    const obj = this.ctx.registry.tryGet(R(kind), ns, name) as ChaosObject | undefined;
    if (!obj) return;
    const now = this.ctx.clock.now();
    const next = structuredClone(obj);
    const events: Ev[] = [];
    // a new object has no status yet: it gets the experiment part here
    next.status = next.status ?? ({} as ChaosStatus);
    next.status.experiment = next.status.experiment ?? {};
    const status = next.status;
    const exp = status.experiment;
    let changed = false;

    // initFinalizers
    const fins: string[] = next.metadata.finalizers ?? [];
    if (!isDeleting(obj) && !fins.includes(FINALIZER)) {
      next.metadata.finalizers = [...fins, FINALIZER];
      events.push(["initFinalizers", "Normal", "FinalizerInited", "Finalizer has been inited"]);
      events.push(["initFinalizers", "Normal", "Updated", "Successfully update finalizer of resource"]);
      changed = true;
    }

    // desiredphase
    const [desired, why] = this.desiredPhase(obj, now, key);
    if (exp.desiredPhase !== desired) {
      if (why) events.push(["desiredphase", "Normal", why[0], why[1]]);
      events.push(["desiredphase", "Normal", "Updated", "Successfully update desiredPhase of resource"]);
      exp.desiredPhase = desired;
      changed = true;
    }

    // records: select once, then move each towards the desired phase
    let retry = false;
    if (exp.containerRecords === undefined) {
      const picked = selectTargets(this.ctx, obj);
      if (typeof picked === "string") {
        events.push(["records", "Warning", "Failed", `Failed to select targets: ${picked}`]);
      } else {
        exp.containerRecords = picked.map((p) => ({
          ...p,
          phase: "Not Injected",
          injectedCount: 0,
          recoveredCount: 0,
        }));
        changed = true;
      }
    }
    const records: ChaosRecord[] = exp.containerRecords ?? [];
    const env: ApplyEnv = { ctx: this.ctx, chaos: next, source: sourceOf(obj), now, status, records };
    let recordsChanged =
      exp.containerRecords !== undefined && obj.status?.experiment?.containerRecords === undefined;
    // our own status write brings us back at once: a failed record waits for its back-off
    const backoff = this.retries.get(key);
    const waiting = !!backoff && backoff.desired === desired && now < backoff.at;
    if (waiting && !backoff.armed) this.arm(key, backoff, backoff.at - now);
    for (const rec of waiting ? [] : records) {
      const op = opFor(desired, rec.phase);
      if (!op) continue;
      recordsChanged = true;
      if (!this.syncRecord(env, rec, op, this.memory(obj), events)) retry = true;
    }
    if (recordsChanged) {
      events.push(["records", "Normal", "Updated", "Successfully update records of resource"]);
      changed = true;
    }

    // conditions
    const conditions = conditionsOf(exp.containerRecords, isPaused(obj));
    if (JSON.stringify(conditions) !== JSON.stringify(status.conditions)) {
      status.conditions = conditions;
      changed = true;
    }

    // cleanFinalizers
    const forced = obj.metadata.annotations?.[CLEAN_FINALIZER_ANNOTATION] === "forced";
    const recovered = records.every((r) => r.phase === "Not Injected");
    if (isDeleting(obj) && (next.metadata.finalizers ?? []).length && (forced || recovered)) {
      next.metadata.finalizers = [];
      events.push(["initFinalizers", "Normal", "FinalizerInited", "Finalizer has been removed"]);
      events.push(["initFinalizers", "Normal", "Updated", "Successfully update finalizer of resource"]);
      changed = true;
    }

    for (const [component, type, reason, message] of events)
      this.ctx.events.record(obj, type, reason, message, { component });
    if (changed) this.ctx.registry.update(R(kind), ns, name, next, { force: true });
    if (retry) this.retryLater(key, now, desired);
    else if (!waiting) this.retries.delete(key);
  }

  /** Apply or recover one record; records the outcome in it and in events. False on failure. */
  private syncRecord(
    env: ApplyEnv,
    rec: ChaosRecord,
    op: "Apply" | "Recover",
    mem: Map<string, Injection>,
    events: Ev[],
  ) {
    const t = targetOf(this.ctx, rec.id, rec.selectorKey);
    const applier = this.appliers[env.chaos.kind];
    const out = op === "Apply" ? applier.apply(env, t) : applier.recover(env, t, mem.get(rec.id));
    const timestamp = stamp(this.ctx.clock, env.now);
    if (!out.ok) {
      pushRecordEvent(rec, { type: "Failed", operation: op, message: out.error, timestamp });
      const verb = op === "Apply" ? "apply" : "recover";
      events.push(["records", "Warning", "Failed", `Failed to ${verb} chaos: ${out.error}`]);
      return false;
    }
    pushRecordEvent(rec, { type: "Succeeded", operation: op, timestamp });
    if (op === "Apply") {
      rec.phase = "Injected";
      rec.injectedCount++;
      if (out.injection) mem.set(rec.id, out.injection);
      events.push(["records", "Normal", "Applied", `Successfully apply chaos for ${rec.id}`]);
    } else {
      rec.phase = "Not Injected";
      rec.recoveredCount++;
      mem.delete(rec.id);
      events.push(["records", "Normal", "Recovered", `Successfully recover chaos for ${rec.id}`]);
    }
    return true;
  }

  /** The object left the store: forget it (its faults stay if it left without recovering). */
  gone(obj: KObject): void {
    this.injections.delete(obj.metadata.uid!);
    const key = `${obj.kind}|${obj.metadata.namespace}/${obj.metadata.name}`;
    this.retries.delete(key);
    this.timed.delete(key);
    this.onGone(sourceOf(obj));
  }

  private memory(obj: KObject): Map<string, Injection> {
    const m = this.injections.get(obj.metadata.uid!) ?? new Map<string, Injection>();
    this.injections.set(obj.metadata.uid!, m);
    return m;
  }

  /** CalcDesiredPhase, and the event that explains a change; arms the duration timer. */
  private desiredPhase(
    obj: ChaosObject,
    now: number,
    key: string,
  ): ["Run" | "Stop", [string, string] | undefined] {
    if (isDeleting(obj)) return ["Stop", ["Deleted", "Experiment has been deleted"]];
    if (isOneShot(obj)) return ["Run", ["Started", "Experiment has started"]];
    const duration = parseGoDuration(obj.spec?.duration);
    if (duration !== undefined) {
      const left = parseStamp(this.ctx.clock, obj.metadata.creationTimestamp) + duration - now;
      if (left <= 0) return ["Stop", ["TimeUp", "Time up according to the duration"]];
      if (!this.timed.has(key)) {
        this.timed.add(key);
        this.ctx.clock.after(left, () => {
          this.timed.delete(key);
          this.ctx.runtime.enqueue(CHAOS_CONTROLLER, key);
        });
      }
    }
    if (isPaused(obj)) return ["Stop", ["Paused", "Experiment has been paused"]];
    return ["Run", ["Started", "Experiment has started"]];
  }

  private retryLater(key: string, now: number, desired: string) {
    const prev = this.retries.get(key);
    const ms = prev?.desired === desired ? Math.min(RETRY_MS.max, prev.ms * 2) : RETRY_MS.initial;
    const b: Backoff = { ms, at: now + ms, desired, armed: false };
    this.retries.set(key, b);
    this.arm(key, b, ms);
  }

  private arm(key: string, b: Backoff, ms: number) {
    b.armed = true;
    this.ctx.clock.after(ms, () => {
      b.armed = false;
      this.ctx.runtime.enqueue(CHAOS_CONTROLLER, key);
    });
  }
}
