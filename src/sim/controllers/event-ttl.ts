// Not a controller: the API server's storage of events, which lives with them for what it needs
// (the store and the clock). Events expire: the API server stores each with a TTL, --event-ttl (1 h, kube-apiserver's and
// k3s's default), counted from its last write (pkg/registry/core/event/storage.go: TTLFunc returns
// the TTL on create and update alike), by etcd leases it reuses for a minute at a time
// (storage/etcd3 lease_manager.go, LeaseReuseDurationSeconds 60). An event an incident's story
// wrote two hours before the alert is gone on k3s; here too, at a minute's grain.

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";

export const EVENT_TTL_MS = 3_600_000;
const GRAIN_MS = 60_000;

export function installEventTtl(ctx: SimContext, ttlMs = EVENT_TTL_MS): void {
  const rt = R("Event");
  // "ns/name" -> when it expires (its last write plus the TTL)
  const expires = new Map<string, number>();
  let timer: (() => void) | undefined;
  let due = Number.POSITIVE_INFINITY;

  const schedule = (at: number) => {
    const when = Math.max(at, ctx.clock.now() + GRAIN_MS);
    if (timer && due <= when) return;
    timer?.();
    due = when;
    timer = ctx.clock.after(when - ctx.clock.now(), sweep);
  };

  function sweep() {
    timer = undefined;
    due = Number.POSITIVE_INFINITY;
    const now = ctx.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [key, at] of expires) {
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      expires.delete(key);
      const [ns, name] = key.split("/");
      if (ctx.store.get(rt, ns, name)) ctx.store.remove(rt, ns, name);
    }
    if (next < Number.POSITIVE_INFINITY) schedule(next);
  }

  ctx.store.subscribe((e) => {
    if (e.rt.kind !== "Event") return;
    const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
    if (e.type === "DELETED") {
      expires.delete(key);
      return;
    }
    const at = ctx.clock.now() + ttlMs;
    expires.set(key, at);
    schedule(at);
  });
}
