// When the tools behind the API proxy wait on the cluster: at least one watch open (rollout
// status, kubectl wait) and no event delivered in the last moment. Right after an event the
// client is at work on it (deciding it is done, exiting): that is its own time, not the cluster's.
export class WaitTracker {
  private open = 0;
  private waiting = false;
  private since = 0;
  private total = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly notify?: (waiting: boolean) => void,
    /** Wall ms after an event before the client counts as waiting again. */
    private readonly graceMs = 50,
  ) {}

  /** A watch opened: the client waits for it. */
  opened(): void {
    this.open++;
    clearTimeout(this.timer);
    this.set(true);
  }

  closed(): void {
    this.open = Math.max(0, this.open - 1);
    if (this.open > 0) return;
    clearTimeout(this.timer);
    this.set(false);
  }

  /** A watch delivered an event: the client works on it, then waits again if it keeps watching. */
  event(): void {
    if (this.open === 0) return;
    this.set(false);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.open > 0) this.set(true);
    }, this.graceMs);
  }

  /** Wall ms spent waiting so far. */
  waitedMs(): number {
    return this.total + (this.waiting ? Date.now() - this.since : 0);
  }

  stop(): void {
    this.open = 0;
    clearTimeout(this.timer);
    this.set(false);
  }

  private set(waiting: boolean): void {
    if (waiting === this.waiting) return;
    this.waiting = waiting;
    if (waiting) this.since = Date.now();
    else this.total += Date.now() - this.since;
    this.notify?.(waiting);
  }
}
