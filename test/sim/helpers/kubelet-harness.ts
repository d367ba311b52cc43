// Runs a golden file (test/sim/kubelet/golden/*.yaml) against an embedded cluster with a pinned clock:
// creates the input objects, then for each step moves the clock to `at`, performs the step's
// action, and compares the pods and the events recorded since the previous step.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import { podStatus } from "../../../src/sim/api/table/pod-status.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import type { Behavior, ContainerRef, Usage } from "../../../src/sim/context/behavior.js";
import type { NodeSpec } from "../../../src/sim/controllers/nodes.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Event, Pod } from "../../../src/sim/core/objects.js";
import type { KObject } from "../../../src/sim/core/types.js";

/** A field of an open JSON document, read by key. */
const field = (v: unknown, k: string): unknown => (v as Record<string, unknown>)[k];

/** What a container does, by its name; times are golden-file ms (0 = the pinned start). */
export interface ContainerScript {
  startupMs?: number;
  memoryMi?: number;
  /** Probe results from a time on: the last window that began wins (default: passes). */
  probe?: { from: number; ok: boolean }[];
  /** The process exits with `code` this long after it started. */
  exit?: { afterMs: number; code: number };
}

/** A real Behavior whose answers come from the golden file; the rest from the cluster's own. */
export class ScriptedBehavior implements Behavior {
  constructor(
    private readonly origin: number,
    private readonly script: Record<string, ContainerScript>,
    private readonly base: Behavior,
  ) {}

  private of(ref: ContainerRef): ContainerScript {
    return this.script[ref.container.name] ?? {};
  }

  startupMs(ref: ContainerRef): number {
    return this.of(ref).startupMs ?? this.base.startupMs(ref);
  }

  probeOk(ref: ContainerRef, now: number): boolean {
    const windows = (this.of(ref).probe ?? []).filter((w) => w.from <= now - this.origin);
    return windows.length ? windows[windows.length - 1].ok : this.base.probeOk(ref, now);
  }

  usage(ref: ContainerRef, now: number): Usage {
    const u = this.base.usage(ref, now);
    const mi = this.of(ref).memoryMi;
    return mi === undefined ? u : { ...u, memoryBytes: mi * 1024 * 1024 };
  }

  exitCode(ref: ContainerRef, now: number): number | undefined {
    const exit = this.of(ref).exit;
    return exit && now - ref.startedAt >= exit.afterMs ? exit.code : undefined;
  }

  logLines(ref: ContainerRef, moment: "start" | "ready" | "tick" | "stop", now: number): string[] {
    return this.base.logLines(ref, moment, now);
  }
}

export interface Step {
  at: number;
  create?: KObject;
  delete?: { name: string; namespace?: string; gracePeriodSeconds?: number };
  /** Set a container's image (what `kubectl set image` or Chaos Mesh's pod-failure does). */
  setImage?: { pod: string; container: string; image: string };
  /** Expected pods: a deep subset of the pod, plus `row` (the kubectl get columns), or "gone". */
  pods?: Record<string, "gone" | { row?: Record<string, string>; [k: string]: unknown }>;
  /** Pod events since the previous step: "Reason", "pod/Reason", or {reason, message, pod, type}. */
  events?: (string | { reason: string; message?: string; pod?: string; type?: string })[];
}

export interface Golden {
  description: string;
  nodes?: NodeSpec[];
  /** Images a user's own system brings, published beside the three systems' (simData). */
  published?: string[];
  behavior?: Record<string, ContainerScript>;
  objects: KObject[];
  steps: Step[];
}

/** A pod event as recorded: the fields an Event may leave out stay absent. */
interface Seen {
  pod?: string;
  uid?: string;
  reason?: string;
  message?: string;
  type?: string;
}

/** A golden string: {{uid}} stands for the pod's uid, {{*}} for any text. */
export function textMatches(want: string, have: unknown, vars: Record<string, string> = {}): boolean {
  if (typeof have !== "string") return false;
  if (!want.includes("{{")) return want === have;
  const re = want
    .split(/(\{\{[\w*]+\}\})/)
    .map((p) => {
      const m = p.match(/^\{\{([\w*]+)\}\}$/);
      if (!m) return p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return m[1] === "*" ? ".*" : (vars[m[1]] ?? "\u0000").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return new RegExp(`^${re}$`, "s").test(have);
}

/** Deep subset: every key of `want` must match; lists of objects match by `type` or `name`. */
export function subsetDiff(
  want: unknown,
  have: unknown,
  path = "",
  vars: Record<string, string> = {},
): string[] {
  if (want === null)
    return have === null || have === undefined ? [] : [`${path}: want absent, have ${JSON.stringify(have)}`];
  if (Array.isArray(want)) {
    if (!Array.isArray(have)) return [`${path}: want a list, have ${JSON.stringify(have)}`];
    return want.flatMap((w: unknown, i) => {
      const key =
        w && typeof w === "object"
          ? field(w, "type") !== undefined
            ? "type"
            : field(w, "name") !== undefined
              ? "name"
              : undefined
          : undefined;
      const h = key
        ? have.find(
            (x: unknown) => (x === null || x === undefined ? undefined : field(x, key)) === field(w, key),
          )
        : have[i];
      return subsetDiff(w, h, `${path}[${key ? `${key}=${field(w, key)}` : i}]`, vars);
    });
  }
  if (want && typeof want === "object") {
    if (!have || typeof have !== "object")
      return [`${path}: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}`];
    return Object.entries(want).flatMap(([k, v]) =>
      subsetDiff(v, field(have, k), path ? `${path}.${k}` : k, vars),
    );
  }
  if (typeof want === "string" && textMatches(want, have, vars)) return [];
  return want === have ? [] : [`${path}: want ${JSON.stringify(want)}, have ${JSON.stringify(have)}`];
}

export class GoldenRun {
  readonly clock = new ManualClock();
  readonly cluster: EmbeddedCluster;
  readonly origin: number;
  private seen: Seen[] = [];

  constructor(readonly golden: Golden) {
    const data = simData();
    this.cluster = new EmbeddedCluster({
      ...data,
      publishedImages: [...data.publishedImages, ...(golden.published ?? [])],
      clock: this.clock,
      autoDrain: false,
      ...(golden.nodes ? { nodes: golden.nodes } : {}),
    });
    this.origin = this.clock.now();
    const ctx = this.cluster.ctx;
    ctx.behavior = new ScriptedBehavior(this.origin, golden.behavior ?? {}, ctx.behavior);
    ctx.store.subscribe((e) => {
      if (e.rt.kind !== "Event" || e.type === "DELETED") return;
      const o = e.object as Event;
      if (o.involvedObject?.kind !== "Pod") return;
      if (e.type === "MODIFIED" && (o.count ?? 1) <= ((e.old as Event | undefined)?.count ?? 1)) return;
      this.seen.push({
        pod: o.involvedObject.name,
        uid: o.involvedObject.uid,
        reason: o.reason,
        message: o.message,
        type: o.type,
      });
    });
    for (const o of golden.objects) this.create(o);
    this.drain();
  }

  private create(o: KObject) {
    const rt = R(o.kind);
    this.cluster.ctx.registry.create(rt, rt.namespaced ? (o.metadata.namespace ?? "default") : undefined, o);
  }

  drain(): void {
    this.cluster.ctx.runtime.drain();
  }

  get t(): number {
    return this.clock.now() - this.origin;
  }

  /** Move the pinned clock to golden time `at`, in 100 ms steps so controllers react on time. */
  advanceTo(at: number): void {
    while (this.t < at) {
      this.clock.advance(Math.min(100, at - this.t));
      this.drain();
    }
  }

  pod(name: string, ns = "default"): Pod | undefined {
    return this.cluster.ctx.registry.tryGet(R("Pod"), ns, name) as Pod | undefined;
  }

  /** Run one step; returns what differs from the expectations. */
  step(s: Step): string[] {
    this.advanceTo(s.at);
    const { registry } = this.cluster.ctx;
    if (s.create) this.create(s.create);
    if (s.delete)
      registry.delete(R("Pod"), s.delete.namespace ?? "default", s.delete.name, {
        gracePeriodSeconds: s.delete.gracePeriodSeconds,
      });
    if (s.setImage) {
      const pod = this.pod(s.setImage.pod)!;
      const spec = structuredClone(pod.spec);
      spec.containers.find((c) => c.name === s.setImage!.container)!.image = s.setImage.image;
      registry.update(R("Pod"), "default", s.setImage.pod, { ...pod, spec });
    }
    this.drain();
    const diffs: string[] = [];
    for (const [name, want] of Object.entries(s.pods ?? {})) {
      const have = this.pod(name);
      if (want === "gone") {
        if (have) diffs.push(`pod ${name}: want gone, still there (phase ${have.status?.phase})`);
        continue;
      }
      if (!have) {
        diffs.push(`pod ${name}: gone`);
        continue;
      }
      const { row, ...rest } = want;
      diffs.push(...subsetDiff(rest, have, `pod ${name}`, { uid: have.metadata.uid! }));
      if (row) {
        const r = podStatus(have, this.clock.now());
        diffs.push(
          ...subsetDiff(row, { ready: r.ready, status: r.reason, restarts: r.restarts }, `pod ${name} row`),
        );
      }
    }
    if (s.events) diffs.push(...this.eventDiff(s.events));
    this.seen = [];
    return diffs.map((d) => `at ${s.at}: ${d}`);
  }

  private eventDiff(want: NonNullable<Step["events"]>): string[] {
    const show = (e: Seen) => `${e.pod}/${e.reason}`;
    const ok =
      want.length === this.seen.length &&
      want.every((w, i) => {
        const h = this.seen[i];
        if (typeof w === "string") return w.includes("/") ? show(h) === w : h.reason === w;
        return (
          h.reason === w.reason &&
          (w.pod === undefined || h.pod === w.pod) &&
          (w.message === undefined ||
            textMatches(w.message, h.message, h.uid === undefined ? {} : { uid: h.uid })) &&
          (w.type === undefined || h.type === w.type)
        );
      });
    return ok
      ? []
      : [
          `events: want ${JSON.stringify(want)}, have ${JSON.stringify(this.seen.map(({ uid: _, ...e }) => e))}`,
        ];
  }
}

export function loadGolden(path: string): Golden {
  return parse(readFileSync(path, "utf8")) as Golden;
}
