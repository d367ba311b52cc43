// Moving the instants an object shows when the clock is re-based (WallClock.showLead): its
// metav1.Time and MicroTime fields, as the API server writes them, move by the same amount, so that
// every age stays what it was. What a user asked for stays as asked: a spec (a Deployment's
// template carries `kubectl.kubernetes.io/restartedAt`, which its pod-template-hash covers) and a
// ConfigMap's or Secret's data are not moved; an Event's times and a Lease's renew and acquire
// times (in its spec) are the cluster's own record, and are.

import type { KObject } from "./types.js";

/** RFC 3339 in UTC as apimachinery writes it: whole seconds (Time) or a fraction (MicroTime). */
const STAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,9})?Z$/;

/** A shown timestamp `deltaMs` later, in its own precision; anything else as it is. */
export function moveStamp(s: string, deltaMs: number): string {
  const m = STAMP.exec(s);
  if (!m) return s;
  const [, whole, frac] = m;
  // the digits below the millisecond stay as written (an event's nanoseconds)
  const t = Date.parse(`${whole}${frac ? frac.slice(0, 4) : ""}Z`);
  if (Number.isNaN(t)) return s;
  const moved = new Date(t + deltaMs).toISOString(); // yyyy-mm-ddThh:mm:ss.sssZ
  if (!frac) return `${moved.slice(0, 19)}Z`;
  const digits = `${moved.slice(20, 23)}${frac.slice(4)}`.padEnd(frac.length - 1, "0");
  return `${moved.slice(0, 19)}.${digits.slice(0, frac.length - 1)}Z`;
}

const moveAll = (v: unknown, d: number): unknown => {
  if (typeof v === "string") return moveStamp(v, d);
  if (Array.isArray(v)) return v.map((x) => moveAll(x, d));
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, moveAll(x, d)]));
  return v;
};

/** The object with every instant it shows `deltaMs` later (undefined when it shows none). */
export function moveShownTimes(o: KObject, deltaMs: number): KObject | undefined {
  const out: Record<string, unknown> = { ...o };
  const m = o.metadata;
  out.metadata = {
    ...m,
    ...(m.creationTimestamp ? { creationTimestamp: moveStamp(m.creationTimestamp, deltaMs) } : {}),
    ...(m.deletionTimestamp ? { deletionTimestamp: moveStamp(m.deletionTimestamp, deltaMs) } : {}),
    ...(m.annotations ? { annotations: moveAll(m.annotations, deltaMs) } : {}),
    ...(m.managedFields
      ? {
          managedFields: (m.managedFields as Record<string, unknown>[]).map((f) =>
            typeof f.time === "string" ? { ...f, time: moveStamp(f.time, deltaMs) } : f,
          ),
        }
      : {}),
  };
  const rec = o as unknown as Record<string, unknown>;
  if (o.kind === "Event") {
    for (const [k, v] of Object.entries(rec))
      if (k !== "metadata" && k !== "involvedObject" && k !== "regarding" && k !== "related")
        out[k] = moveAll(v, deltaMs);
  } else {
    if (rec.status !== undefined) out.status = moveAll(rec.status, deltaMs);
    if (o.kind === "Lease" && rec.spec !== undefined) out.spec = moveAll(rec.spec, deltaMs);
  }
  return JSON.stringify(out) === JSON.stringify(o) ? undefined : (out as unknown as KObject);
}
