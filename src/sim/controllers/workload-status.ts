// Status bookkeeping the workload controllers share: IntOrString percentages, Go's omitempty,
// status writes that skip no-ops, kube's condition rules, and timed re-syncs.
import { isDeepStrictEqual } from "node:util";
import type { SimContext } from "../context/context.js";
import type { KObject, ResourceType } from "../core/types.js";

/** An IntOrString such as 1 or "25%" scaled against `total` (kube's GetScaledValueFromIntOrPercent). */
export function scaled(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) return /^\d+$/.test(v) ? Number(v) : 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/** Drop zero counters, as Go's omitempty does when kube serialises workload status. */
export function omitZero<T extends Record<string, unknown>>(o: T, keep: string[] = []): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && (v !== 0 || keep.includes(k))) out[k] = v;
  return out as T;
}

/** Write status through the status subresource, only when it changed. */
export function writeStatus(ctx: SimContext, rt: ResourceType, obj: KObject, status: object): KObject {
  if (isDeepStrictEqual(obj.status, status)) return obj;
  return ctx.registry.update(
    rt,
    obj.metadata.namespace,
    obj.metadata.name!,
    { ...obj, status },
    { subresource: "status" },
  );
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

/** Kube's SetDeploymentCondition: same status and reason is no change; same status keeps the transition time. */
export function setCondition(conds: Condition[], c: Condition): Condition[] {
  const cur = conds.find((x) => x.type === c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return conds;
  const next = { ...c };
  if (cur && cur.status === c.status) next.lastTransitionTime = cur.lastTransitionTime;
  return [...conds.filter((x) => x.type !== c.type), next];
}

/**
 * Timed re-syncs without piling up timers: a key already due no later than asked is left alone.
 */
export class Requeuer {
  private readonly due = new Map<string, number>();
  constructor(
    private readonly ctx: SimContext,
    private readonly name: string,
  ) {}

  after(key: string, ms: number): void {
    const now = this.ctx.clock.now();
    const at = now + Math.max(0, ms);
    const pending = this.due.get(key);
    if (pending !== undefined && pending > now && pending <= at) return;
    this.due.set(key, at);
    this.ctx.runtime.enqueueAfter(this.name, key, Math.max(0, ms));
  }
}
