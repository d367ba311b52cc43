// What the workload controllers share, after kube's controller_utils.go: template hashing and
// comparison, pod predicates, building pods from templates, adoption by selector, the order in
// which surplus pods go (status bookkeeping is in workload-status.ts).
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import { type LabelSelectorSpec, selectorMatches } from "../api/selectors.js";
import type { SimContext } from "../context/context.js";
import { type Clock, parseStamp } from "../core/clock.js";
import { controllerOf, ownerRef, podReady } from "../core/meta.js";
import type { Pod, PodSpec, PodTemplate } from "../core/objects.js";
import type { KObject, ObjectMeta, ResourceType } from "../core/types.js";

/**
 * Go's semantic equality treats null, absent and empty lists alike (kubectl sends
 * `creationTimestamp: null` in templates it patches back), so compare and hash this form.
 */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x === null || x === undefined || (Array.isArray(x) && x.length === 0)) continue;
    if (
      (k === "labels" || k === "annotations") &&
      typeof x === "object" &&
      Object.keys(x as object).length === 0
    )
      continue;
    out[k] = canonical(x);
  }
  return out;
}

const SAFE = "bcdfghjklmnpqrstvwxz2456789";

/**
 * A stable short hash, as kube's ComputeHash: FNV-32a over the object (here its canonical JSON),
 * then the collision count, printed in decimal and mapped through rand.SafeEncodeString.
 */
export function computeHash(value: unknown, collisionCount?: number): string {
  let h = 0x811c9dc5;
  const feed = (bytes: Uint8Array) => {
    for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  };
  feed(Buffer.from(JSON.stringify(canonical(value)), "utf8"));
  if (collisionCount) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(collisionCount >>> 0);
    feed(b);
  }
  return [...String(h >>> 0)].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join("");
}

/** Pod templates equal once a label (pod-template-hash) is ignored on both. */
export function templatesEqual(
  a: PodTemplate | undefined,
  b: PodTemplate | undefined,
  ignoreLabel?: string,
): boolean {
  const strip = (t: PodTemplate | undefined) => {
    const c: PodTemplate = structuredClone(t ?? {});
    if (ignoreLabel && c.metadata?.labels) delete c.metadata.labels[ignoreLabel];
    return canonical(c);
  };
  return isDeepStrictEqual(strip(a), strip(b));
}

// ---- pods -------------------------------------------------------------------------------------

// The predicates take any KObject: callers pass pods straight from store lists.
export const isTerminating = (p: KObject) => Boolean(p.metadata.deletionTimestamp);
export const isFinished = (p: KObject) => {
  const phase = (p as Pod).status?.phase;
  return phase === "Succeeded" || phase === "Failed";
};
/** Pods that count toward a workload's replicas: not terminating, not finished. */
export const isActive = (p: KObject) => !isTerminating(p) && !isFinished(p);
export { podReady };

/** ms until a ready pod has been ready for minReadySeconds: 0 when available, Infinity when not ready. */
export function untilAvailable(p: KObject, minReadySeconds: number, now: number, clock: Clock): number {
  if (!podReady(p)) return Number.POSITIVE_INFINITY;
  if (!minReadySeconds) return 0;
  const cond = ((p as Pod).status?.conditions ?? []).find((c) => c.type === "Ready");
  // a wall-clock stamp, read back as cluster time (the clock may run fast)
  const since = parseStamp(clock, cond?.lastTransitionTime);
  if (Number.isNaN(since)) return 0;
  // kube: available once lastTransitionTime + minReadySeconds is strictly before now
  const at = since + minReadySeconds * 1000;
  return at < now ? 0 : at - now + 1;
}

export const isAvailable = (p: KObject, minReadySeconds: number, now: number, clock: Clock) =>
  untilAvailable(p, minReadySeconds, now, clock) === 0;

/** A pod for `owner` from a pod template (labels, annotations, finalizers and spec are copied). */
export function podFromTemplate(
  owner: KObject,
  template: PodTemplate | undefined,
  name: string,
  generateName?: string,
): Pod {
  const tm = template?.metadata ?? {};
  const metadata: ObjectMeta = {
    name,
    namespace: owner.metadata.namespace,
    labels: { ...(tm.labels ?? {}) },
    ownerReferences: [ownerRef(owner)],
  };
  if (generateName) metadata.generateName = generateName;
  if (tm.annotations && Object.keys(tm.annotations).length) metadata.annotations = { ...tm.annotations };
  if (tm.finalizers?.length) metadata.finalizers = [...tm.finalizers];
  // a template without a spec gives a pod without one, which the API then refuses
  const spec = structuredClone(template?.spec ?? ({} as PodSpec));
  return { apiVersion: "v1", kind: "Pod", metadata, spec };
}

/** A fresh generated name `<prefix><5 chars>` not taken; the prefix is cut to 58 as the API server's generateName does. */
export function freshName(ctx: SimContext, rt: ResourceType, ns: string | undefined, prefix: string): string {
  for (;;) {
    const name = prefix.slice(0, 58) + ctx.rng.chars(5);
    if (!ctx.registry.tryGet(rt, ns, name)) return name;
  }
}

const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const readySince = (p: Pod) =>
  Date.parse((p.status?.conditions ?? []).find((c) => c.type === "Ready")?.lastTransitionTime ?? "") || 0;
const restarts = (p: Pod) =>
  Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
const deletionCost = (p: Pod) =>
  Number(p.metadata.annotations?.["controller.kubernetes.io/pod-deletion-cost"] ?? 0) || 0;

/**
 * Order in which surplus pods are deleted (kube's ActivePodsWithRanks): unscheduled before
 * scheduled, Pending before Running, not ready before ready, cheaper deletion cost first,
 * ready more recently first, more restarts first, newest first.
 */
export function deletionOrder(a: Pod, b: Pod): number {
  const sched = Number(Boolean(a.spec?.nodeName)) - Number(Boolean(b.spec?.nodeName));
  if (sched) return sched;
  const phase = (phaseRank[a.status?.phase ?? ""] ?? 0) - (phaseRank[b.status?.phase ?? ""] ?? 0);
  if (phase) return phase;
  const ready = Number(podReady(a)) - Number(podReady(b));
  if (ready) return ready;
  const cost = deletionCost(a) - deletionCost(b);
  if (cost) return cost;
  if (podReady(a) && podReady(b) && readySince(a) !== readySince(b)) return readySince(b) - readySince(a);
  const r = restarts(b) - restarts(a);
  if (r) return r;
  const created =
    Date.parse(b.metadata.creationTimestamp ?? "") - Date.parse(a.metadata.creationTimestamp ?? "");
  return created || b.metadata.name!.localeCompare(a.metadata.name!);
}

/** An object whose spec selects what it owns: a Deployment, ReplicaSet, StatefulSet or DaemonSet. */
export interface Selecting extends KObject {
  spec: { selector?: LabelSelectorSpec };
}

/**
 * Kube's ControllerRefManager: of `candidates`, return those `owner` controls after adopting
 * orphans its selector matches and releasing owned ones it no longer matches. An owner being
 * deleted adopts nothing.
 */
export function claim<T extends KObject>(
  ctx: SimContext,
  rt: ResourceType,
  owner: Selecting,
  candidates: T[],
  extraMatch: (o: T) => boolean = () => true,
): T[] {
  const sel = owner.spec?.selector;
  const uid = owner.metadata.uid;
  const out: T[] = [];
  for (const o of candidates) {
    const ref = controllerOf(o);
    const matches = selectorMatches(sel, o.metadata.labels) && extraMatch(o);
    if (ref?.uid === uid) {
      if (matches || owner.metadata.deletionTimestamp) out.push(o);
      else if (!o.metadata.deletionTimestamp) {
        const refs = o.metadata.ownerReferences!.filter((r) => r.uid !== uid);
        ctx.registry.update(
          rt,
          o.metadata.namespace,
          o.metadata.name!,
          { ...o, metadata: { ...o.metadata, ownerReferences: refs } },
          { force: true },
        );
      }
    } else if (!ref && matches && !owner.metadata.deletionTimestamp && !o.metadata.deletionTimestamp) {
      const refs = [...(o.metadata.ownerReferences ?? []), ownerRef(owner)];
      const adopted = ctx.registry.update(
        rt,
        o.metadata.namespace,
        o.metadata.name!,
        { ...o, metadata: { ...o.metadata, ownerReferences: refs } },
        { force: true },
      );
      out.push(adopted as T); // the same object, of the candidates' kind
    }
  }
  return out;
}

/** Controllers create nothing in a namespace that is going away (the API would refuse). */
export function namespaceActive(ctx: SimContext, ns: string | undefined): boolean {
  const o = ns ? ctx.store.get(R("Namespace"), undefined, ns) : undefined;
  return Boolean(o && !o.metadata.deletionTimestamp);
}
