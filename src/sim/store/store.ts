// The object store: one resourceVersion counter for all objects, a bounded event history for
// watches that resume from a resourceVersion, and listeners (the controllers and open watches).
// Stored objects are never mutated in place: every write stores a new object.

import type { KObject, ResourceType, StoreEvent } from "../core/types.js";
import { KEY } from "../core/types.js";

export type Listener = (e: StoreEvent) => void;

const keyOf = (ns: string | undefined, name: string) => `${ns ?? ""}/${name}`;

export class Store {
  private rv = 1;
  private readonly data = new Map<string, Map<string, KObject>>();
  private readonly history: StoreEvent[] = [];
  private readonly listeners = new Set<Listener>();

  constructor(private readonly historySize = 20_000) {}

  get resourceVersion(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may resume from (older ones answer 410 Gone). */
  get oldestResumable(): number {
    return this.history.length ? this.history[0].rv - 1 : this.rv;
  }

  private table(rt: ResourceType): Map<string, KObject> {
    const k = KEY(rt);
    let t = this.data.get(k);
    if (!t) {
      t = new Map();
      this.data.set(k, t);
    }
    return t;
  }

  get(rt: ResourceType, ns: string | undefined, name: string): KObject | undefined {
    return this.table(rt).get(keyOf(rt.namespaced ? ns : undefined, name));
  }

  list(rt: ResourceType, ns?: string): KObject[] {
    const all = [...this.table(rt).values()];
    return ns && rt.namespaced ? all.filter((o) => o.metadata.namespace === ns) : all;
  }

  /** Store a new version of an object (create or replace) and tell everyone. */
  put(rt: ResourceType, obj: KObject): KObject {
    const t = this.table(rt);
    const k = keyOf(rt.namespaced ? obj.metadata.namespace : undefined, obj.metadata.name!);
    const old = t.get(k);
    const rv = ++this.rv;
    const stored: KObject = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    t.set(k, stored);
    this.emit({ type: old ? "MODIFIED" : "ADDED", rt, object: stored, old, rv });
    return stored;
  }

  remove(rt: ResourceType, ns: string | undefined, name: string): KObject | undefined {
    const t = this.table(rt);
    const k = keyOf(rt.namespaced ? ns : undefined, name);
    const old = t.get(k);
    if (!old) return undefined;
    t.delete(k);
    const rv = ++this.rv;
    const gone: KObject = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
    this.emit({ type: "DELETED", rt, object: gone, old, rv });
    return gone;
  }

  /**
   * Replace objects in place where `fn` returns a new one, with no new resourceVersion and no event:
   * for what changes how an object is shown and not the object (the clock re-based between cases,
   * WallClock.showLead). Nothing watches for it, as nothing happened.
   */
  rewrite(fn: (o: KObject) => KObject | undefined): number {
    let n = 0;
    for (const t of this.data.values())
      for (const [k, o] of t) {
        const next = fn(o);
        if (!next) continue;
        t.set(k, next);
        n++;
      }
    return n;
  }

  /** Events after `rv`, or undefined when the history no longer reaches back that far. */
  eventsSince(rv: number): StoreEvent[] | undefined {
    if (rv < this.oldestResumable) return undefined;
    // history is sorted by rv: binary search the first event after rv
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.history[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: StoreEvent) {
    this.history.push(e);
    if (this.history.length > this.historySize)
      this.history.splice(0, this.history.length - this.historySize);
    for (const fn of [...this.listeners]) {
      try {
        fn(e);
      } catch (err) {
        // A failing listener must not break the write or the other listeners.
        console.error("store listener failed:", err);
      }
    }
  }
}
