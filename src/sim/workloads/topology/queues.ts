// What waits in each service's queue, per namespace, over cluster time: the one piece of the
// traffic model that has a history. While requests arrive faster than a service serves them
// (capacity.ts) the backlog grows by the difference each second and every request waits
// backlog / capacity; when they arrive slower it drains. The callers give up after their
// timeout, but the requests they gave up on stay queued and are still served (a Tomcat thread
// or a gRPC handler finishes the work): so once the wait passes the callers' timeouts every call
// fails, and callers that retry (settings' retries) send up to retries + 1 times the load. That
// keeps the queue full after whatever filled it (a surge, a slow moment) is gone, until retries
// are lowered or capacity raised enough for it to drain: the metastable failure of Bronson et
// al., "Metastable Failures in Distributed Systems" (HotOS 2021), a retry storm sustained by its
// own load. The queue holds at most QUEUE_CAP_S seconds of work (the accept queue and the
// listen backlog are bounded; beyond them connections wait in the kernel and time out).
//
// The model steps in whole STEP_MS of cluster time from the moment a queue starts to fill, so
// a pinned clock gives the same history however often it is read.

/** Cluster ms per step of the queues. */
export const STEP_MS = 1000;
/** Seconds of work a service's queue holds at most. */
export const QUEUE_CAP_S = 30;
/** Steps taken at most per read (a longer gap is covered in longer steps). */
const MAX_STEPS = 600;

export interface Flow {
  /** Requests per second arriving (retries included) and served at most. */
  rps: number;
  capacity: number;
}

export class Queues {
  /** Requests waiting, by service key. */
  readonly backlog = new Map<string, number>();
  /** Each service's capacity when last worked out: a saturated service passes on only what it serves. */
  readonly capacity = new Map<string, number>();
  /** The share of calls along each edge (caller>callee) that failed last time: what retries repeat. */
  readonly fail = new Map<string, number>();
  /** Whether the edge failure shares changed since the load was worked out from them. */
  failMoved = false;
  /** Cluster ms up to which the queues have been stepped. */
  at = 0;
  active = false;

  /** Wait in the queue (ms) for a service of that capacity. */
  waitMs(key: string, capacity: number): number {
    const b = this.backlog.get(key) ?? 0;
    if (b <= 0) return 0;
    return capacity > 0 ? (b / capacity) * 1000 : QUEUE_CAP_S * 1000;
  }

  /** Record an edge's failure share; a move of any size asks for another step. */
  setFail(edge: string, f: number): void {
    const was = this.fail.get(edge) ?? 0;
    if (Math.abs(was - f) > 1e-9) this.failMoved = true;
    if (f > 0) this.fail.set(edge, f);
    else this.fail.delete(edge);
  }

  /** Whether anything still moves: a queue fills or drains, or retries follow new failures. */
  settle(flows: Map<string, Flow>, retrying: boolean): boolean {
    let moving = this.backlog.size > 0 || (retrying && this.failMoved);
    for (const f of flows.values()) if (f.rps > 0 && f.rps >= f.capacity) moving = true;
    this.failMoved = false;
    return moving;
  }

  /** Move the queues `dt` ms on at the given flows. */
  step(flows: Map<string, Flow>, dt: number): void {
    for (const [key, f] of flows) {
      const b = (this.backlog.get(key) ?? 0) + ((f.rps - f.capacity) * dt) / 1000;
      const cap = Number.isFinite(f.capacity) ? f.capacity * QUEUE_CAP_S : 0;
      const next = Math.min(Math.max(0, b), cap);
      if (next > 1e-6) this.backlog.set(key, next);
      else this.backlog.delete(key);
    }
    for (const key of [...this.backlog.keys()]) if (!flows.has(key)) this.backlog.delete(key);
  }

  /** The steps between `at` and `now`: their count and length. */
  plan(now: number): { n: number; dt: number } {
    const gap = now - this.at;
    if (gap < STEP_MS) return { n: 0, dt: STEP_MS };
    const n = Math.floor(gap / STEP_MS);
    if (n <= MAX_STEPS) return { n, dt: STEP_MS };
    return { n: MAX_STEPS, dt: (n * STEP_MS) / MAX_STEPS };
  }
}
