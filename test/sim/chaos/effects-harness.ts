// Runs an effects golden (test/sim/chaos/golden/effects/*.yaml): a pinned-clock cluster with the real
// kubelet, controllers and Chaos Mesh controllers; the file's objects are created at time 0, then
// each step moves the clock to `at` (ms after the start), acts, and compares
//   objects  "<Kind>/<name>": a deep subset of the object, or "gone"
//   exact    "<Kind>/<name>:<dotted.path>": the value there, compared whole (every key and item)
//   faults   "<pod>": the pod's FaultBook records, whole ({source, fault, since: ms after start})
//   metrics  "<pod>": {container: {cpu, memory}} as metrics-server serves them, or "none"
//   events   "<object>": every event about it since the previous step, "Reason: message", in order
// Strings may hold {{*}} (any text) and {{uid:<pod>}} (that pod's uid); null means absent.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Event } from "../../../src/sim/core/objects.js";
import type { KObject } from "../../../src/sim/core/types.js";
import { SimMetrics } from "../../../src/sim/metrics/source.js";
import { subsetDiff, textMatches } from "../helpers/kubelet-harness.js";

/** An open JSON document, read and written by key. */
type Doc = Record<string, unknown>;

export interface EffectStep {
  at: number;
  create?: KObject;
  delete?: { kind: string; name: string; gracePeriodSeconds?: number };
  /** Merge into the live object (annotations, finalizers, spec fields) and update it. */
  patch?: { kind: string; name: string; merge: unknown };
  objects?: Record<string, unknown>;
  exact?: Record<string, unknown>;
  faults?: Record<string, unknown[]>;
  metrics?: Record<string, "none" | Record<string, { cpu: string; memory: string }>>;
  events?: Record<string, string[]>;
}

export interface EffectGolden {
  description: string;
  namespace?: string;
  seed?: number;
  objects: KObject[];
  steps: EffectStep[];
}

const NS = "chaos";

/** JSON merge patch (RFC 7386). */
function merge(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Doc = target && typeof target === "object" && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/** Whole-value comparison: same keys, same list lengths; strings may hold {{...}} patterns. */
export function exactDiff(want: unknown, have: unknown, path: string): string[] {
  if (want === null)
    return have === null || have === undefined ? [] : [`${path}: want absent, have ${JSON.stringify(have)}`];
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length)
      return [`${path}: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}`];
    return want.flatMap((w: unknown, i) => exactDiff(w, have[i], `${path}[${i}]`));
  }
  if (want && typeof want === "object") {
    if (!have || typeof have !== "object" || Array.isArray(have))
      return [`${path}: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}`];
    const keys = new Set([...Object.keys(want), ...Object.keys(have)]);
    return [...keys].flatMap((k) =>
      k in want
        ? exactDiff((want as Doc)[k], (have as Doc)[k], `${path}.${k}`)
        : [`${path}.${k}: not expected, have ${JSON.stringify((have as Doc)[k])}`],
    );
  }
  if (typeof want === "string" && textMatches(want, have)) return [];
  return want === have ? [] : [`${path}: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}`];
}

export class EffectsRun {
  readonly clock = new ManualClock();
  readonly cluster: EmbeddedCluster;
  readonly origin: number;
  readonly ns: string;
  private seen: { object?: string; line: string }[] = [];
  /** metrics-server, scraping from the start (its window needs the history). */
  readonly metrics: SimMetrics;

  constructor(readonly golden: EffectGolden) {
    this.ns = golden.namespace ?? NS;
    this.cluster = new EmbeddedCluster({
      ...simData(),
      clock: this.clock,
      autoDrain: false,
      seed: golden.seed ?? 42,
    });
    this.origin = this.clock.now();
    this.metrics = new SimMetrics(this.cluster.ctx);
    const { registry, store } = this.cluster.ctx;
    store.subscribe((e) => {
      if (e.rt.kind !== "Event" || e.type === "DELETED") return;
      const o = e.object as Event;
      if (e.type === "MODIFIED" && (o.count ?? 1) <= ((e.old as Event | undefined)?.count ?? 1)) return;
      this.seen.push({ object: o.involvedObject.name, line: `${o.reason}: ${o.message}` });
    });
    registry.create(R("Namespace"), undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: this.ns },
    });
    for (const o of golden.objects) this.create(o);
    this.drain();
  }

  private create(o: KObject) {
    const rt = R(o.kind);
    this.cluster.ctx.registry.create(rt, rt.namespaced ? (o.metadata.namespace ?? this.ns) : undefined, o);
  }

  drain(): void {
    this.cluster.ctx.runtime.drain();
  }

  get t(): number {
    return this.clock.now() - this.origin;
  }

  advanceTo(at: number): void {
    while (this.t < at) {
      this.clock.advance(Math.min(100, at - this.t));
      this.drain();
    }
  }

  get(kind: string, name: string): KObject | undefined {
    const rt = R(kind);
    return this.cluster.ctx.registry.tryGet(rt, rt.namespaced ? this.ns : undefined, name);
  }

  /** Replace {{uid:<pod>}} with the pod's uid. */
  private vars(want: unknown): unknown {
    if (typeof want === "string")
      return want.replace(
        /\{\{uid:([\w-]+)\}\}/g,
        (_, pod: string) => this.get("Pod", pod)?.metadata.uid ?? "\u0000",
      );
    if (Array.isArray(want)) return want.map((w) => this.vars(w));
    if (want && typeof want === "object")
      return Object.fromEntries(Object.entries(want).map(([k, v]) => [k, this.vars(v)]));
    return want;
  }

  step(s: EffectStep): string[] {
    this.advanceTo(s.at);
    const { registry } = this.cluster.ctx;
    if (s.create) this.create(s.create);
    if (s.delete) {
      const rt = R(s.delete.kind);
      registry.delete(rt, rt.namespaced ? this.ns : undefined, s.delete.name, {
        gracePeriodSeconds: s.delete.gracePeriodSeconds,
      });
    }
    if (s.patch) {
      const live = this.get(s.patch.kind, s.patch.name)!;
      const rt = R(s.patch.kind);
      registry.update(
        rt,
        rt.namespaced ? this.ns : undefined,
        s.patch.name,
        merge(live, s.patch.merge) as KObject,
      ); // an object merged with an object patch
    }
    this.drain();
    const diffs: string[] = [];
    for (const [key, raw] of Object.entries(s.objects ?? {})) {
      const [kind, name] = key.split("/");
      const have = this.get(kind, name);
      if (raw === "gone") {
        if (have) diffs.push(`${key}: want gone, still there`);
        continue;
      }
      if (!have) diffs.push(`${key}: gone`);
      else diffs.push(...subsetDiff(this.vars(raw), have, key));
    }
    for (const [key, raw] of Object.entries(s.exact ?? {})) {
      const [ref, path] = key.split(":");
      const [kind, name] = ref.split("/");
      const have = path
        .split(".")
        .reduce<unknown>(
          (o, k) => (o === null || o === undefined ? undefined : (o as Doc)[k]),
          this.get(kind, name),
        );
      diffs.push(...exactDiff(this.vars(raw), have, key));
    }
    for (const [pod, raw] of Object.entries(s.faults ?? {})) {
      const uid = this.get("Pod", pod)?.metadata.uid;
      const have = this.cluster.ctx.faults
        .forPod(uid)
        .map((r) => ({ source: r.source, fault: r.fault, since: r.since - this.origin }));
      diffs.push(...exactDiff(this.vars(raw), have, `faults ${pod}`));
    }
    if (s.metrics) {
      const all = this.metrics.podMetrics(this.ns);
      for (const [pod, want] of Object.entries(s.metrics)) {
        const m = all.find((x) => x.metadata.name === pod);
        const have = m
          ? Object.fromEntries(
              (m.containers as { name: string; usage: unknown }[]).map((c) => [c.name, c.usage]),
            )
          : "none";
        diffs.push(...exactDiff(want, have, `metrics ${pod}`));
      }
    }
    for (const [object, want] of Object.entries(s.events ?? {})) {
      const have = this.seen.filter((e) => e.object === object).map((e) => e.line);
      diffs.push(...exactDiff(this.vars(want), have, `events ${object}`));
    }
    this.seen = [];
    return diffs.map((d) => `at ${s.at}: ${d}`);
  }
}

export function loadEffects(path: string): EffectGolden {
  return parse(readFileSync(path, "utf8")) as EffectGolden;
}
