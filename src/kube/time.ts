// Cluster time as the runner sees it: every protocol duration is in cluster time, divided by the
// cluster's clock speed when waiting on the wall clock. The embedded cluster reports its speed in
// /version (to its admin) and follows the ConfigMap kube-system/cluster-clock; a real cluster
// runs at 1 and has neither.
//
// While a model thinks or a playbook runs, time passes as on a real cluster: the runner slows the
// embedded cluster to the method speed (1 by default), so a 20 s model call or ansible's 2 s
// start-up costs 20 s or 2 s of cluster time, not 20 or 2 minutes, and a chaos `duration` means
// what it means on k3s. Only while every acting method waits on the cluster (a watch open:
// rollout status, kubectl wait) does the clock run fast again: then nothing but the cluster's
// own dynamics passes, and those take the same cluster time at any speed.
import type { KubeClient } from "./client.js";

/** Where the embedded cluster's clock speed is set: in kube-system, out of an agent's sight. */
const CLOCK = { namespace: "kube-system", name: "cluster-clock" };

/** The cluster's clock as the harness waits on it and times by it (ClusterTime; a fake in tests). */
export interface Clock {
  /** The cluster's own time, ms. */
  clusterNow(): Promise<number>;
  /** Wall ms for a cluster duration. */
  wall(clusterMs: number): number;
  /** Wait a cluster duration. */
  sleep(clusterMs: number, signal?: AbortSignal): Promise<void>;
  /** Run fn with the clock at a method's speed. */
  realtime<T>(speed: number, fn: () => Promise<T>): Promise<T>;
  /** Inside realtime, the method waits on the cluster (true) or acts again (false). */
  waiting(on: boolean): Promise<void>;
  /** Inside realtime, run fn at the run's full speed. */
  fast<T>(slowSpeed: number, fn: () => Promise<T>): Promise<T>;
  /** Where no one reads: show cluster time `leadMs` behind the wall clock; how far shown time moved (ms). */
  showLead(leadMs: number): Promise<number>;
}

export class ClusterTime implements Clock {
  private current: number;
  private realtimeHolders = 0;
  /** Of the realtime holders, how many wait on the cluster now; and the speed they hold. */
  private waitingHolders = 0;
  private slowSpeed = 1;
  /** Cluster ms up to the last speed change, and the wall time of that change. */
  private clusterMsAtMark = 0;
  private wallAtMark = Date.now();

  constructor(
    readonly fastSpeed: number,
    private readonly client?: KubeClient,
  ) {
    this.current = fastSpeed;
  }

  static async of(client: KubeClient): Promise<ClusterTime> {
    const v = await client.version();
    if (v.clockSpeed === undefined) return new ClusterTime(1);
    const speed = Number(v.clockSpeed);
    return new ClusterTime(Number.isFinite(speed) && speed > 0 ? speed : 1, client);
  }

  /** The speed in force now. */
  get speed(): number {
    return this.current;
  }

  /** Whether the cluster's clock can be sped up and slowed down (the embedded cluster). */
  get adjustable(): boolean {
    return this.client !== undefined;
  }

  /**
   * Cluster ms since this connection was opened, across every speed change (a case's method runs
   * slower than the rest of it, and parallel cases change the speed under each other's waits).
   */
  elapsed(): number {
    return this.clusterMsAtMark + (Date.now() - this.wallAtMark) * this.current;
  }

  /**
   * The cluster's own clock (ms), as the embedded cluster reports it in /version; a real
   * cluster's time is the wall clock's. Exact where elapsed() is an estimate: the embedded
   * clock falls behind the wall clock's pace when its engine is busy.
   */
  async clusterNow(): Promise<number> {
    if (!this.client) return Date.now();
    const v = await this.client.version();
    const ms = Number(v.clockMillis);
    return Number.isFinite(ms) ? ms : this.elapsed();
  }

  private rebases = 0;

  /**
   * Where no one reads (between cases, and before a case's method): have the embedded cluster show
   * its time `leadMs` behind the wall clock, every instant it shows moved alike (docs/clock.md), so
   * that a model reads describe's ages as the cluster's and not a whole run's lead ahead. Returns
   * how far shown time moved (ms), for what the caller noted of it before; a real cluster has no
   * lead and moves nothing.
   */
  async showLead(leadMs: number): Promise<number> {
    if (!this.client) return 0;
    const shift = async () => Number((await this.client!.version()).clockShiftMillis ?? 0) || 0;
    const before = await shift();
    // a new value each time, also across runs on one long-lived cluster
    const rebase = `${Date.now()}-${++this.rebases}`;
    await this.client.patch("v1", "ConfigMap", CLOCK.namespace, CLOCK.name, {
      data: { lead: String(Math.round(leadMs)), rebase },
    });
    return (await shift()) - before;
  }

  /** Wall milliseconds for a cluster duration. */
  wall(clusterMs: number): number {
    return clusterMs / this.current;
  }

  private pending: Promise<void> = Promise.resolve();

  /** Bring the clock to the speed the holders need now; changes apply one at a time, in order. */
  private sync(): Promise<void> {
    const next = this.pending.then(() => this.set(this.wanted()));
    // a failed change (the cluster went away) is the caller's error; the next change still runs
    this.pending = next.catch(() => undefined);
    return next;
  }

  private async set(speed: number): Promise<void> {
    if (!this.client || speed === this.current) return;
    await this.client.patch("v1", "ConfigMap", CLOCK.namespace, CLOCK.name, {
      data: { speed: String(speed) },
    });
    this.clusterMsAtMark = this.elapsed();
    this.wallAtMark = Date.now();
    this.current = speed;
  }

  /** The speed the holders need: slow while any acts, fast when none does or all of them wait. */
  private wanted(): number {
    return this.realtimeHolders > this.waitingHolders ? this.slowSpeed : this.fastSpeed;
  }

  /** Run fn with the clock at `speed` (a method acting in real time); nests across parallel cases. */
  async realtime<T>(speed: number, fn: () => Promise<T>): Promise<T> {
    if (!this.adjustable || speed === this.fastSpeed) return fn();
    this.realtimeHolders++;
    this.slowSpeed = speed;
    await this.sync();
    try {
      return await fn();
    } finally {
      this.realtimeHolders--;
      await this.sync();
    }
  }

  /**
   * Inside a realtime phase, the acting method waits on the cluster (true) or acts again (false):
   * while every holder waits, the clock runs fast. Calls must pair up.
   */
  async waiting(on: boolean): Promise<void> {
    if (!this.adjustable || this.realtimeHolders === 0) return;
    this.waitingHolders = Math.max(0, this.waitingHolders + (on ? 1 : -1));
    await this.sync();
  }

  /** Inside a realtime phase, run fn fast again (the runner itself waits on the cluster). */
  async fast<T>(slowSpeed: number, fn: () => Promise<T>): Promise<T> {
    if (!this.adjustable || slowSpeed === this.fastSpeed) return fn();
    this.realtimeHolders--;
    await this.sync();
    try {
      return await fn();
    } finally {
      this.realtimeHolders++;
      await this.sync();
    }
  }

  /**
   * Wait a cluster duration, by the cluster's own clock (which a busy embedded cluster lets fall
   * behind the wall clock's pace); a speed change midway (another case's method) is followed.
   */
  async sleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    const until = (await this.clusterNow()) + clusterMs;
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const left = until - (await this.clusterNow());
      if (left <= 0) return;
      // look again at least every second of wall time, in case the speed changed
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(t);
          reject(signal?.reason);
        };
        const t = setTimeout(
          () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
          Math.max(1, Math.min(this.wall(left), 1000)),
        );
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    }
  }
}
