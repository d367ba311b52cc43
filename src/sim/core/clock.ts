// Cluster time: the one clock of the embedded cluster. Every timestamp it writes, every age it
// prints, every delay it schedules and every `date` a container runs reads this clock. It may run
// faster than the wall clock (--speed F), but never ahead of it: it starts behind the wall clock
// by a lead (the time fast phases may gain) and, once it has caught up, follows it at speed 1.
// So what kubectl computes from its own clock (describe's ages) is never less than what happened
// in the cluster. The invariant and its consequences: docs/clock.md.

import { type Timer, TimerQueue } from "./timer-queue.js";

export interface Clock {
  readonly speed: number;
  /** Change how fast cluster time runs from now on (the embedded cluster's wall clock only). */
  setSpeed?(speed: number): void;
  /** Show cluster time `leadMs` behind the wall clock from now on; the shown instants' move (WallClock). */
  showLead?(leadMs: number): number;
  /** Be told each time shown instants move (WallClock). */
  onShift?(fn: (deltaMs: number) => void): () => void;
  /** How far shown instants have moved in all (WallClock). */
  readonly shiftMs?: number;
  /** Cluster time, in ms since the epoch. */
  now(): number;
  /** Run fn after `ms` of cluster time. Returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
  /**
   * The instant shown for a cluster instant (timestamps, log lines, `date`, every age's origin):
   * the engine's instant moved by the clock's current shift, which is 0 until the clock is re-based
   * between cases (showLead). Every reader sees shown instants only, so there is one clock.
   */
  toWall(ms: number): number;
  /** The engine's instant of a shown one. */
  fromWall(ms: number): number;
}

interface Segment {
  cluster: number;
  wall: number;
  speed: number;
}

/** How far the engine fell behind the wall clock: what `npm run bench -- clock` prints. */
export interface ClockStats {
  /** Timers run. */
  fired: number;
  /** The most a timer ran after its due instant on the wall clock's pace (cluster ms). */
  maxBehindMs: number;
  /** How far cluster time is behind the wall clock's pace now: the work not yet done. */
  lagMs: number;
  /** How far cluster time is behind the wall clock now (never negative): the lead left. */
  behindWallMs: number;
  /** Times now() was asked while a timer was overdue: it answered that timer's instant. */
  heldAtWork: number;
}

/**
 * The wall clock, sped up, that never runs ahead of the work nor of the wall clock. The speed may change while it runs
 * (the runner slows the cluster to real time while a model or playbook acts): time is piecewise
 * linear in the wall clock. Timers run one per macrotask in (due, creation) order, and `now()`
 * never passes the earliest timer that has not yet run, and stays at a timer's instant while the
 * callbacks it woke run. When the event loop is too busy to run timers on time, cluster time
 * slows down and waits for them instead of skipping what it did not simulate; the backlog then
 * runs as fast as the engine can, and once nothing is due before the wall clock's pace, time
 * rejoins it (the runner, which counts cluster time as wall time x speed, sees only the current
 * backlog as lag). So the same seed does the same work on a loaded machine as on an idle one.
 * Cluster time starts `lead` ms behind the wall clock; a fast clock gains on it and, once level,
 * runs at the wall clock's pace whatever the speed (it waits for the wall clock).
 */
export class WallClock implements Clock {
  private readonly segments: Segment[];
  private readonly queue = new TimerQueue();
  private seq = 0;
  /** Cluster time the engine has reached: the latest instant now() answered or a timer ran at. */
  private floor: number;
  /** Between a timer's callback and the next dispatch: time stays at that timer's instant. */
  private holding = false;
  private handle?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;
  private readonly st = { fired: 0, maxBehindMs: 0, heldAtWork: 0 };
  /** What is shown minus the engine's instant: moved only by showLead, between cases. */
  private shift = 0;
  private readonly shifted = new Set<(deltaMs: number) => void>();

  constructor(speed = 1, lead = 0) {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    if (!(lead >= 0)) throw new RangeError(`lead must be >= 0 ms, got ${lead}`);
    const t = Date.now();
    this.segments = [{ cluster: t - lead, wall: t, speed }];
    this.floor = t - lead;
  }

  get speed(): number {
    return this.segments[this.segments.length - 1].speed;
  }

  stats(): ClockStats {
    const wall = Date.now();
    const now = this.now();
    return {
      ...this.st,
      lagMs: Math.max(0, this.paced(wall) - now),
      behindWallMs: Math.max(0, wall - this.toWall(now)),
    };
  }

  /** The earliest timer that has not run (cluster ms), if any. */
  pendingDue(): number | undefined {
    return this.queue.peek()?.due;
  }

  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    if (speed === this.speed) return;
    this.rebase(this.now(), speed);
    this.arm();
  }

  now(): number {
    if (this.holding) return this.floor;
    let t = Math.round(this.paced(Date.now()));
    const head = this.queue.peek();
    if (head && head.due < t) {
      t = head.due;
      this.st.heldAtWork++;
    }
    if (t > this.floor) this.floor = t;
    return this.floor;
  }

  toWall(ms: number): number {
    return ms + this.shift;
  }

  fromWall(ms: number): number {
    return ms - this.shift;
  }

  /**
   * Show cluster time `leadMs` behind the wall clock from now on: every shown instant moves by the
   * same amount (the returned delta), past and future alike, so every age and every duration
   * between two shown instants stays what it was, and the engine's own time goes on untouched.
   * What keeps shown instants (stored timestamps, log lines) is told through onShift and moves
   * them. The runner asks for it between cases, where no one reads: a case then needs only its
   * own lead, not the run's (docs/clock.md).
   */
  showLead(leadMs: number): number {
    if (!(leadMs >= 0)) throw new RangeError(`lead must be >= 0 ms, got ${leadMs}`);
    const now = this.now();
    const delta = Date.now() - leadMs - this.toWall(now);
    if (delta === 0) return 0;
    // the engine's time goes on from where it is; only the cap on it (shown <= wall) moves
    this.rebase(now, this.speed);
    this.shift += delta;
    for (const fn of [...this.shifted]) fn(delta);
    this.arm();
    return delta;
  }

  get shiftMs(): number {
    return this.shift;
  }

  /** Tell `fn` each time shown instants move (by delta ms); returns a function that stops it. */
  onShift(fn: (deltaMs: number) => void): () => void {
    this.shifted.add(fn);
    return () => this.shifted.delete(fn);
  }

  /** Cluster time at wall instant `wall` if the engine kept up: sped up, shown no later than the wall clock. */
  private paced(wall: number): number {
    const seg = this.segments[this.last((s) => s.wall <= wall)];
    return Math.min(wall - this.shift, seg.cluster + (wall - seg.wall) * seg.speed);
  }

  /** The wall instant at which paced time reaches cluster instant `ms` (from the last segment). */
  private wallWhen(ms: number): number {
    const seg = this.segments[this.segments.length - 1];
    return Math.max(this.toWall(ms), seg.wall + (ms - seg.cluster) / seg.speed);
  }

  after(ms: number, fn: () => void): () => void {
    const timer: Timer = { due: this.now() + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.queue.push(timer);
    if (this.queue.peek() === timer) this.arm();
    return () => {
      timer.cancelled = true;
    };
  }

  /** Index of the last segment satisfying `ok` (segments are ordered in both times). */
  private last(ok: (s: Segment) => boolean): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ok(this.segments[mid])) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** From now on, wall time maps onto cluster time from `cluster`. */
  private rebase(cluster: number, speed: number) {
    const wall = Date.now();
    const top = this.segments[this.segments.length - 1];
    if (top.wall === wall) this.segments.pop();
    this.segments.push({ cluster, wall, speed });
  }

  /** Wait on the wall clock for the earliest timer (unless a dispatch is already queued). */
  private arm() {
    if (this.holding || this.immediate) return;
    clearTimeout(this.handle);
    this.handle = undefined;
    const head = this.queue.peek();
    if (!head) return;
    const wait = Math.max(0, this.wallWhen(head.due) - Date.now());
    this.handle = setTimeout(() => this.dispatch(), wait);
    this.handle.unref?.();
  }

  /** Run the earliest due timer, then come back in a later macrotask for the next one. */
  private dispatch() {
    this.handle = undefined;
    this.immediate = undefined;
    this.holding = false;
    const head = this.queue.peek();
    const nominal = this.paced(Date.now());
    if (!head || head.due > nominal) {
      // caught up: nothing is due before the wall clock's pace, so time may rejoin it
      this.arm();
      return;
    }
    this.queue.pop();
    this.st.fired++;
    this.st.maxBehindMs = Math.max(this.st.maxBehindMs, nominal - head.due);
    if (head.due > this.floor) this.floor = head.due;
    this.holding = true;
    try {
      head.fn();
    } finally {
      // after whatever the callback queued (setImmediate drains, promise continuations)
      clearTimeout(this.handle);
      this.handle = undefined;
      // ref'd: Node polls without blocking only for ref'd immediates (an unref'd one waits for
      // the next I/O or timer); it keeps the process alive only until the next dispatch
      this.immediate = setImmediate(() => this.dispatch());
    }
  }
}

/**
 * The lead a clock at `speed` starts with: enough for half an hour of wall time at that speed
 * (a run of a few dozen cases), and none at speed 1, where cluster time is the wall clock's.
 */
export function defaultLead(speed: number): number {
  return Math.max(0, speed - 1) * 30 * 60_000;
}

/** A clock that moves only when told to: for golden tests with pinned time. */
export class ManualClock implements Clock {
  readonly speed = 1;
  private t: number;
  private seq = 0;
  private timers: { at: number; seq: number; fn: () => void }[] = [];

  constructor(start = Date.parse("2026-01-01T00:00:00Z")) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  toWall(ms: number): number {
    return ms;
  }

  fromWall(ms: number): number {
    return ms;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Advance time, firing due timers in order (timers they schedule fire too if due). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
    }
    this.t = end;
  }
}

export const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/**
 * An object timestamp (metav1.Time) for cluster instant `ms`: RFC 3339 in whole seconds, as
 * apimachinery's Time.MarshalJSON writes it (`t.UTC().Format(time.RFC3339)`), at any speed.
 */
export function stamp(clock: Clock, ms: number): string {
  return iso(clock.toWall(ms));
}

/**
 * A metav1.MicroTime (events.k8s.io eventTime, a Lease's renewTime): RFC 3339 with microseconds,
 * as MicroTime.MarshalJSON writes it (`2006-01-02T15:04:05.000000Z07:00`).
 */
export function microStamp(ms: number): string {
  return new Date(Math.floor(ms)).toISOString().replace("Z", "000Z");
}

/** The cluster instant of a timestamp written by stamp() (NaN when absent or malformed). */
export function parseStamp(clock: Clock, s: string | undefined | null): number {
  return clock.fromWall(Date.parse(s ?? ""));
}
