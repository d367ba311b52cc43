// A tiny controller runtime: per-controller work queues of object keys, deduplicated, drained
// asynchronously (setImmediate) so a write never recurses into controllers, and drainable on
// demand for deterministic tests. Timed requeues go through the cluster clock.

import { ApiError } from "../api/status.js";
import type { Clock } from "../core/clock.js";

export type Reconcile = (key: string) => void;

export class ControllerRuntime {
  private readonly reconcilers = new Map<string, Reconcile>();
  private readonly queues = new Map<string, Set<string>>();
  private scheduled = false;
  private stopped = false;
  private readonly cancels = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    /** Tests drain by hand; the server drains on its own. */
    private readonly auto = true,
  ) {}

  register(name: string, reconcile: Reconcile): void {
    this.reconcilers.set(name, reconcile);
    this.queues.set(name, new Set());
  }

  enqueue(name: string, key: string): void {
    if (this.stopped) return;
    const q = this.queues.get(name);
    if (!q) throw new Error(`no controller named ${name}`);
    q.add(key);
    this.schedule();
  }

  /** Enqueue after `ms` of cluster time. */
  enqueueAfter(name: string, key: string, ms: number): void {
    if (this.stopped) return;
    const cancel = this.clock.after(ms, () => {
      this.cancels.delete(cancel);
      this.enqueue(name, key);
    });
    this.cancels.add(cancel);
  }

  private schedule() {
    if (this.scheduled || !this.auto) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /** Process queued keys until every queue is empty (or a round limit guards against loops). */
  drain(maxRounds = 1000): void {
    for (let round = 0; round < maxRounds; round++) {
      let worked = false;
      for (const [name, q] of this.queues) {
        if (!q.size) continue;
        const keys = [...q];
        q.clear();
        worked = true;
        const reconcile = this.reconcilers.get(name)!;
        for (const key of keys) {
          try {
            reconcile(key);
          } catch (e) {
            // A conflict means someone wrote first, a 403 that admission refused the write (the
            // controller recorded why): try again shortly. Anything else is a bug to see.
            if (!(e instanceof ApiError && (e.code === 409 || e.code === 404 || e.code === 403)))
              console.error(`controller ${name} failed on ${key}:`, e);
            this.enqueueAfter(name, key, 1000);
          }
        }
      }
      if (!worked) return;
    }
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    for (const c of this.cancels) c();
    this.cancels.clear();
  }
}

/** The node agents' queue names: others enqueue a pod key there to have it looked at again. */
export const KUBELET = "kubelet";
export const SCHEDULER = "scheduler";
