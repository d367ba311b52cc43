// The ports bound in each pod's network namespace by the processes the simulation runs (BusyBox
// `nc -l`), and whether an application found its port taken when it opened it. A TCP port is
// bound by one socket of the namespace at a time: whoever binds first holds it until its process
// ends, and a later bind() fails with EADDRINUSE (Go's `bind: address already in use`, Python's
// `[Errno 98] Address already in use`). An application of the topology opens its port when its
// start-up ends (Behavior.startupMs), so a sidecar that starts at once takes the port first.
//
// A bind is kept after its process ended (with `until`), so that whether an application's port was
// taken at the moment it opened it gives the same answer whenever it is asked; the pod's records go
// when the pod leaves the store.

import type { SimContext } from "../../context/context.js";

export interface Bind {
  port: number;
  container: string;
  restartCount: number;
  /** The process's name (netstat -p). */
  comm: string;
  /** Cluster ms: bound at, and released at once the process ended. */
  since: number;
  until?: number;
}

class BindBook {
  private readonly byPod = new Map<string, Bind[]>();
  /** instance key -> the port found taken when the application opened it (null: none was). */
  private readonly opened = new Map<string, number | null>();

  /** Bind a port for a process, unless it is held at `b.since`; false: EADDRINUSE. */
  bind(podUid: string, b: Bind): boolean {
    if (this.holder(podUid, b.port, b.since)) return false;
    const list = this.byPod.get(podUid) ?? [];
    list.push(b);
    this.byPod.set(podUid, list);
    return true;
  }

  /** The process ended: its port is free from `at`. */
  release(b: Bind, at: number): void {
    b.until ??= at;
  }

  /** The bind holding `port` at `at` (another container's, when `except` names one). */
  holder(podUid: string, port: number, at: number, except?: string): Bind | undefined {
    return (this.byPod.get(podUid) ?? []).find(
      (b) =>
        b.port === port && b.since <= at && (b.until === undefined || b.until > at) && b.container !== except,
    );
  }

  /** The binds held now. */
  active(podUid: string, now: number): Bind[] {
    return (this.byPod.get(podUid) ?? []).filter(
      (b) => b.since <= now && (b.until === undefined || b.until > now),
    );
  }

  /**
   * The port an application instance found taken when it opened its ports at `at`, decided once
   * per instance (undefined until `at`).
   */
  takenAtOpen(podUid: string, key: string, container: string, ports: number[], at: number, now: number) {
    const known = this.opened.get(key);
    if (known !== undefined) return known;
    if (now < at) return undefined;
    const taken = ports.find((p) => this.holder(podUid, p, at, container)) ?? null;
    this.opened.set(key, taken);
    return taken;
  }

  forget(podUid: string): void {
    this.byPod.delete(podUid);
    for (const k of [...this.opened.keys()]) if (k.startsWith(`${podUid}/`)) this.opened.delete(k);
  }
}

const books = new WeakMap<SimContext, BindBook>();

/** The cluster's bind book (one per cluster; a pod's records go when it leaves the store). */
export function bindBook(ctx: SimContext): BindBook {
  let b = books.get(ctx);
  if (!b) {
    const book = new BindBook();
    ctx.store.subscribe((e) => {
      if (e.rt.kind === "Pod" && e.type === "DELETED" && e.object.metadata.uid)
        book.forget(e.object.metadata.uid);
    });
    books.set(ctx, book);
    b = book;
  }
  return b;
}
