// Waits that end when the watched condition holds: watches trigger re-checks at once, and a
// poll in cluster time covers what cannot be watched (metrics) or a dropped watch.
import { MicroRemedError } from "../errors.js";
import { type KubeClient, openWatch } from "./client.js";
import type { Clock } from "./time.js";

export interface WatchTarget {
  apiVersion: string;
  kind: string;
  namespace?: string;
  labelSelector?: string;
}

export interface WaitOptions<T> {
  client: KubeClient;
  time: Clock;
  /** Resolves to a value when the condition holds, undefined when not yet. */
  check: () => Promise<T | undefined>;
  watch?: WatchTarget[];
  /** Cluster ms. */
  timeoutMs: number;
  /** Cluster ms between checks when nothing was watched to change (default 2 s, as the reference polls usage). */
  pollMs?: number;
  /**
   * Checks to make before giving up, however fast the clock runs: a check's own wall time (an
   * exec round trip) is many cluster seconds at a high speed, and must not shrink the sample.
   */
  minChecks?: number;
  signal?: AbortSignal;
}

export type WaitResult<T> =
  | { ok: true; value: T; waitedMs: number }
  | { ok: false; waitedMs: number; error?: unknown };

export async function waitFor<T>(o: WaitOptions<T>): Promise<WaitResult<T>> {
  // by the cluster's own clock: a busy embedded cluster falls behind the wall clock's pace, and
  // a timeout in cluster time must give it that much simulated time, not that much wall time
  const start = await o.time.clusterNow();
  const elapsedCluster = async () => (await o.time.clusterNow()) - start;
  const closers: (() => void)[] = [];
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  try {
    for (const w of o.watch ?? []) {
      closers.push(
        await openWatch(o.client, w.apiVersion, w.kind, w.namespace, poke, {
          labelSelector: w.labelSelector,
        }),
      );
    }
    let lastError: unknown;
    let checks = 0;
    for (;;) {
      if (o.signal?.aborted) throw o.signal.reason ?? new MicroRemedError("E_INTERRUPTED", "interrupted");
      try {
        checks++;
        const v = await o.check();
        if (v !== undefined) return { ok: true, value: v, waitedMs: await elapsedCluster() };
        lastError = undefined;
      } catch (e) {
        if (e instanceof MicroRemedError && e.code === "E_CLUSTER_UNREACHABLE") throw e;
        lastError = e;
      }
      const waited = await elapsedCluster();
      const left = o.timeoutMs - waited;
      if (left <= 0 && checks >= (o.minChecks ?? 1)) return { ok: false, waitedMs: waited, error: lastError };
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, o.time.wall(Math.max(0, Math.min(left, o.pollMs ?? 2000))));
        function done() {
          clearTimeout(t);
          wake = undefined;
          o.signal?.removeEventListener("abort", done);
          resolve();
        }
        wake = done;
        o.signal?.addEventListener("abort", done, { once: true });
      });
    }
  } finally {
    for (const c of closers) c();
  }
}
