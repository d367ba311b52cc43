// metrics-server's scrape loop on the cluster clock: every --metric-resolution (15 s) it takes
// from each kubelet a point per running container (timestamp, cumulative CPU since the container
// started, memory working set) and keeps the last two. The usage it serves is the CPU rate
// between those two points and the memory of the last: a change shows after the next scrape,
// fully after a whole window. A container's first point counts from its start when it started
// 10-15 s before the kubelet's point (metrics-server's freshContainerMinMetricsResolution), the
// point being cAdvisor's last housekeeping (every 10 s from the start): a first scrape 10-20 s
// after the start. Otherwise it needs two scrapes. (The point itself is stamped with the scrape
// instant, not the housekeeping one: a fresh pod's window reads 10-15 s here, 10 s on k3s.) Cumulative CPU is integrated here between scrapes and at every change of the
// pod's faults, so a stressor injected mid-window counts for the part of the window it ran.

import { R } from "../api/resources.js";
import type { ContainerRef } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import type { Pod } from "../core/objects.js";
import { containerUsage, runningRefs } from "./usage.js";

/** metrics-server's freshContainerMinMetricsResolution (pkg/storage/pod.go). */
const FRESH_MIN_MS = 10_000;
/**
 * cAdvisor's housekeeping interval in the kubelet (defaultHousekeepingInterval): the kubelet's
 * points are stamped with the last housekeeping, at the container's start and every 10 s after,
 * and that stamp is what the fresh-container rule compares with the start.
 */
const HOUSEKEEPING_MS = 10_000;

interface Acc {
  ref: ContainerRef;
  /** Cumulative CPU in millicore-ms since the container started. */
  cum: number;
  /** When `cum` was last brought up to date, and the rate since then. */
  at: number;
  rate: number;
  /** Working set at the last update. */
  mem: number;
}

export interface Point {
  ts: number;
  startedAt: number;
  /**
   * Which run of the container (its restartCount): what tells a restart from the same run. The
   * start instant, parsed back from a wall-clock stamp through the clock's speed segments, may
   * move by a few cluster ms when the speed changes often (parallel cases).
   */
  instance: number;
  cum: number;
  memoryBytes: number;
}

export interface Sample {
  last: Point;
  prev?: Point;
  node: string;
}

const key = (uid: string | undefined, name: string) => `${uid}/${name}`;

export class Scraper {
  private readonly accs = new Map<string, Acc>();
  /** The two last points per container (metrics-server's podStorage). */
  readonly samples = new Map<string, Sample>();
  private cancel?: () => void;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ctx: SimContext,
    readonly resolutionMs: number,
  ) {
    this.unsubscribe = ctx.faults.onChange((uid) => this.checkpointPod(uid));
    const tick = () => {
      // the next scrape is due whatever this one met (a pod half-deleted mid-scrape)
      this.cancel = ctx.clock.after(resolutionMs, tick);
      this.scrape();
    };
    tick();
  }

  stop(): void {
    this.cancel?.();
    this.unsubscribe();
  }

  /** Bring a container's cumulative CPU up to now, at the rate it had since the last update. */
  private advance(ref: ContainerRef, now: number): Acc {
    const k = key(ref.pod.metadata.uid, ref.container.name);
    let a = this.accs.get(k);
    if (!a || a.ref.restartCount !== ref.restartCount) {
      // a new container instance: from its start at the rate it has now
      const u = containerUsage(this.ctx, ref, now);
      a = {
        ref,
        cum: u.cpuMilli * Math.max(0, now - ref.startedAt),
        at: now,
        rate: u.cpuMilli,
        mem: u.memoryBytes,
      };
      this.accs.set(k, a);
      return a;
    }
    a.cum += a.rate * Math.max(0, now - a.at);
    a.at = now;
    a.ref = ref;
    const u = containerUsage(this.ctx, ref, now);
    a.rate = u.cpuMilli;
    a.mem = u.memoryBytes;
    return a;
  }

  /** A pod's faults changed: what it used so far counts at the old rate, from now at the new. */
  private checkpointPod(uid: string): void {
    const now = this.ctx.clock.now();
    for (const a of [...this.accs.values()]) if (a.ref.pod.metadata.uid === uid) this.advance(a.ref, now);
  }

  /** One scrape of every kubelet. */
  scrape(): void {
    const now = this.ctx.clock.now();
    const seen = new Set<string>();
    for (const pod of this.ctx.registry.list(R("Pod"), undefined) as Pod[]) {
      // a pod that cannot be read whole (mid-change) is left out of this scrape only, as
      // metrics-server leaves out what a kubelet could not report, and the others still count
      try {
        this.scrapePod(pod, now, seen);
      } catch {}
    }
    // metrics-server keeps only what the last scrape saw
    for (const k of [...this.samples.keys()]) if (!seen.has(k)) this.samples.delete(k);
    for (const k of [...this.accs.keys()]) if (!seen.has(k)) this.accs.delete(k);
  }

  /** One pod's running containers into the samples (their keys into `seen`). */
  private scrapePod(pod: Pod, now: number, seen: Set<string>): void {
    const refs = runningRefs(pod, this.ctx.clock);
    if (!refs) return;
    for (const ref of refs) {
      const k = key(pod.metadata.uid, ref.container.name);
      seen.add(k);
      // a second scrape at the same cluster instant (the clock holds time while due timers
      // run) learns nothing new: keep the window as it was rather than lose it for a cycle
      const same = this.samples.get(k);
      if (same && same.last.ts === now && same.last.instance === ref.restartCount) continue;
      const a = this.advance(ref, now);
      const point: Point = {
        ts: now,
        startedAt: ref.startedAt,
        instance: ref.restartCount,
        cum: a.cum,
        memoryBytes: a.mem,
      };
      const old = this.samples.get(k);
      const age = now - ref.startedAt;
      // the age of the kubelet's point: its last cAdvisor housekeeping
      const pointAge = Math.floor(age / HOUSEKEEPING_MS) * HOUSEKEEPING_MS;
      let prev: Point | undefined;
      if (age > 0 && pointAge < this.resolutionMs && pointAge >= FRESH_MIN_MS)
        prev = {
          ts: ref.startedAt,
          startedAt: ref.startedAt,
          instance: ref.restartCount,
          cum: 0,
          memoryBytes: 0,
        };
      else if (old && old.last.instance === ref.restartCount && old.last.ts < now) prev = old.last;
      this.samples.set(k, { last: point, prev, node: pod.spec?.nodeName ?? "" });
    }
  }

  /** The usage metrics-server serves for a container: rate over the window, last memory. */
  usage(uid: string | undefined, container: string, instance: number) {
    const s = this.samples.get(key(uid, container));
    if (!s?.prev || s.last.instance !== instance) return undefined;
    const window = s.last.ts - s.prev.ts;
    if (!(window > 0)) return undefined;
    return {
      cpuMilli: (s.last.cum - s.prev.cum) / window,
      memoryBytes: s.last.memoryBytes,
      timestamp: s.last.ts,
      windowMs: window,
    };
  }
}

/** A duration as Go's time.Duration prints it ("15s", "12.5s", "1m0s"). */
export function goDuration(ms: number): string {
  const s = Math.round(ms) / 1000;
  if (s < 60) return `${Number(s.toFixed(3))}s`;
  const m = Math.floor(s / 60);
  return `${m}m${Number((s - m * 60).toFixed(3))}s`;
}
