// Cluster time. The embedded cluster may run faster than the wall clock (--speed F): every delay
// the simulation schedules is in cluster milliseconds and is divided by F on the wall clock.

export interface Clock {
  readonly speed: number;
  /** Change how fast cluster time runs from now on (the embedded cluster's wall clock only). */
  setSpeed?(speed: number): void;
  /** Cluster time, in ms since the epoch. */
  now(): number;
  /** Run fn after `ms` of cluster time. Returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
  /**
   * The wall time at which a cluster instant is shown. Timestamps in objects follow the wall
   * clock (so kubectl's ages are never "<invalid>"); only the simulated processes run faster.
   */
  toWall(ms: number): number;
  fromWall(ms: number): number;
}

interface Segment {
  cluster: number;
  wall: number;
  speed: number;
}

interface Timer {
  due: number;
  fn: () => void;
  handle?: NodeJS.Timeout;
}

/**
 * The wall clock, sped up. The speed may change while it runs (the runner slows the cluster to
 * real time while a model or playbook acts): time is piecewise linear, and pending timers are
 * re-armed at the new pace so every delay stays a delay of cluster time.
 */
export class WallClock implements Clock {
  private readonly segments: Segment[];
  private readonly timers = new Set<Timer>();

  constructor(speed = 1) {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    const t = Date.now();
    this.segments = [{ cluster: t, wall: t, speed }];
  }

  get speed(): number {
    return this.segments[this.segments.length - 1].speed;
  }

  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
    if (speed === this.speed) return;
    const wall = Date.now();
    this.segments.push({ cluster: this.fromWall(wall), wall, speed });
    for (const t of this.timers) this.arm(t);
  }

  now(): number {
    return Math.round(this.fromWall(Date.now()));
  }

  toWall(ms: number): number {
    let seg = this.segments[0];
    for (const s of this.segments) if (s.cluster <= ms) seg = s;
    return seg.wall + (ms - seg.cluster) / seg.speed;
  }

  fromWall(ms: number): number {
    let seg = this.segments[0];
    for (const s of this.segments) if (s.wall <= ms) seg = s;
    return seg.cluster + (ms - seg.wall) * seg.speed;
  }

  after(ms: number, fn: () => void): () => void {
    const timer: Timer = { due: this.now() + Math.max(0, ms), fn };
    this.timers.add(timer);
    this.arm(timer);
    return () => {
      clearTimeout(timer.handle);
      this.timers.delete(timer);
    };
  }

  private arm(t: Timer) {
    clearTimeout(t.handle);
    t.handle = setTimeout(
      () => {
        this.timers.delete(t);
        t.fn();
      },
      Math.max(0, (t.due - this.now()) / this.speed),
    );
    t.handle.unref?.();
  }
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
 * An object timestamp for cluster instant `ms`: RFC 3339 in wall time. Whole seconds as the API
 * server writes them; with a fast clock, milliseconds too, since a wall second then spans many
 * cluster seconds and the simulation reads its own timestamps back.
 */
export function stamp(clock: Clock, ms: number): string {
  const wall = clock.toWall(ms);
  return clock.speed > 1 ? new Date(Math.floor(wall)).toISOString() : iso(wall);
}

/** The cluster instant of a timestamp written by stamp() (NaN when absent or malformed). */
export function parseStamp(clock: Clock, s: string | undefined | null): number {
  const wall = Date.parse(s ?? "");
  return Number.isNaN(wall) ? Number.NaN : clock.fromWall(wall);
}
