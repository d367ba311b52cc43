// A cluster clock that moves only when told: sleeps and the checks' own waits advance it at once,
// so a test says exactly how much cluster time passes and nothing waits on the wall clock.
import type { Clock } from "../../src/kube/time.js";

export class FakeClock implements Clock {
  /** Cluster ms slept, in order (the settle, a hold, ...). */
  readonly sleeps: number[] = [];

  constructor(public now = 1_000_000) {}

  advance(ms: number): void {
    this.now += ms;
  }

  async clusterNow(): Promise<number> {
    return this.now;
  }

  wall(clusterMs: number): number {
    return clusterMs;
  }

  async sleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(clusterMs);
    this.now += clusterMs;
  }

  realtime<T>(_speed: number, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  async waiting(_on: boolean): Promise<void> {}

  fast<T>(_slowSpeed: number, fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /** Leads asked for, in order; shown time moves by `moves` (0 unless a test sets it). */
  readonly leads: number[] = [];
  moves = 0;

  async showLead(leadMs: number): Promise<number> {
    this.leads.push(leadMs);
    this.now += this.moves;
    return this.moves;
  }
}
