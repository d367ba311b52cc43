// The kubelet's back-off (k8s.io/client-go/util/flowcontrol.Backoff, without jitter): per key, a
// delay that starts at `initial`, doubles on each retry up to `max`, and starts over when the
// last retry is more than 2 x max ago.
import type { BackoffSpec } from "../stages/load.js";

interface Entry {
  backoff: number;
  lastUpdate: number;
}

export class Backoff {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly spec: BackoffSpec) {}

  private expired(e: Entry, eventTime: number) {
    return eventTime - e.lastUpdate > 2 * this.spec.max;
  }

  /** A retry happens now (Next): the next back-off grows, or starts over. */
  next(key: string, eventTime: number, now: number): void {
    const e = this.entries.get(key);
    if (!e || this.expired(e, eventTime))
      this.entries.set(key, { backoff: this.spec.initial, lastUpdate: now });
    else this.entries.set(key, { backoff: Math.min(e.backoff * 2, this.spec.max), lastUpdate: now });
  }

  /** Ms of back-off left after an event at `since` (IsInBackOffSince); 0 when clear. */
  leftSince(key: string, since: number, now: number): number {
    const e = this.entries.get(key);
    if (!e || this.expired(e, since)) return 0;
    return Math.max(0, since + e.backoff - now);
  }

  /** Ms of back-off left since the last retry (IsInBackOffSinceUpdate); 0 when clear. */
  leftSinceUpdate(key: string, now: number): number {
    const e = this.entries.get(key);
    if (!e || this.expired(e, now)) return 0;
    return Math.max(0, e.lastUpdate + e.backoff - now);
  }

  /** The current back-off for a key (what the waiting message quotes). */
  current(key: string): number {
    return this.entries.get(key)?.backoff ?? this.spec.initial;
  }

  forget(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}

/** A duration as Go's time.Duration prints it: 512ms, 1.2s, 1m20s, 5m0s. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  const fmt = (x: number) => String(Math.round(x * 1000) / 1000);
  if (s < 60) return `${fmt(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${fmt(s - m * 60)}s`;
  const h = Math.floor(m / 60);
  return `${h}h${m - h * 60}m${fmt(s - m * 60)}s`;
}
