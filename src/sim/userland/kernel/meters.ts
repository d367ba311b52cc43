// Counters the kernel keeps growing (CPU time and throttled periods of a cgroup, bytes and
// packets through an interface, what a qdisc sent and dropped), kept as the metrics scraper keeps
// its cumulative CPU: each counter grows at the rate the simulation gives now, brought up to date
// whenever it is read and whenever that rate may change (a fault injected or recovered, a pod of
// the namespace changing), so what ran before a change counts at the rate it had then.

interface Meter {
  at: number;
  totals: number[];
  /** Per cluster ms, since `at`. */
  rates: number[];
  rate: () => number[];
}

export class Meters {
  private readonly byKey = new Map<string, Meter>();
  private readonly shown = new Map<string, number>();

  /**
   * The counters under `key`, up to `now`. A meter seen for the first time counts from `start` at
   * the rate it has now (as metrics-server's first point of a fresh container does).
   */
  read(key: string, now: number, start: number, rate: () => number[]): number[] {
    let m = this.byKey.get(key);
    if (!m) {
      const rates = rate();
      m = { at: now, totals: rates.map((r) => r * Math.max(0, now - start)), rates, rate };
      this.byKey.set(key, m);
      return [...m.totals];
    }
    m.rate = rate;
    this.advance(m, now);
    return [...m.totals];
  }

  /**
   * The greater of `value` and what this counter showed before: a count derived from integrals
   * (a whole number of periods) never goes back between two reads.
   */
  atLeast(key: string, value: number): number {
    const shown = Math.max(this.shown.get(key) ?? value, value);
    this.shown.set(key, shown);
    return shown;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  private advance(m: Meter, now: number): void {
    const dt = Math.max(0, now - m.at);
    m.totals = m.totals.map((t, i) => t + (m.rates[i] ?? 0) * dt);
    m.at = Math.max(m.at, now);
    m.rates = m.rate();
  }

  /** Bring every meter under `prefix` up to `now` at the rate it had, then take its new rate. */
  checkpoint(prefix: string, now: number): void {
    for (const [k, m] of this.byKey) if (k.startsWith(prefix)) this.advance(m, now);
  }

  forget(prefix: string): void {
    for (const k of [...this.byKey.keys()]) if (k.startsWith(prefix)) this.byKey.delete(k);
    for (const k of [...this.shown.keys()]) if (k.startsWith(prefix)) this.shown.delete(k);
  }
}
