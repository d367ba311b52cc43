// Cluster time. The embedded cluster may run faster than the wall clock (--speed F): every delay
// the simulation schedules is in cluster milliseconds and is divided by F on the wall clock.

export interface Clock {
  readonly speed: number;
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

export class WallClock implements Clock {
  private readonly wallStart = Date.now();
  private readonly clusterStart = Date.now();

  constructor(readonly speed = 1) {
    if (!(speed > 0)) throw new RangeError(`speed must be > 0, got ${speed}`);
  }

  now(): number {
    return this.clusterStart + Math.round((Date.now() - this.wallStart) * this.speed);
  }

  toWall(ms: number): number {
    return this.wallStart + (ms - this.clusterStart) / this.speed;
  }

  fromWall(ms: number): number {
    return this.clusterStart + (ms - this.wallStart) * this.speed;
  }

  after(ms: number, fn: () => void): () => void {
    const t = setTimeout(fn, Math.max(0, ms / this.speed));
    t.unref?.();
    return () => clearTimeout(t);
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
