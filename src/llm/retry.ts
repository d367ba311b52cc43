// The one retry loop every provider goes through. Providers only classify their errors
// (retryable or not, and the server's delay hint); the SDKs' own retries are off
// (maxRetries: 0), so attempts, waits and the give-up message are decided here, once.
import { MicroRemedError } from "../errors.js";
import type { ErrorReason } from "../outcome.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff step; doubles per attempt, capped at maxDelayMs, then jittered. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Give up when the next wait would end past this much time since the first attempt. */
  maxTotalMs: number;
}

/** Time and chance, injectable so tests neither wait nor flake. */
export interface RetryClock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  now(): number;
  /** In [0, 1). */
  random(): number;
}

export type RetryVerdict =
  | { retry: true; reason: string; delayHintMs?: number; cause: ErrorReason }
  /** Not worth retrying: this error is thrown as is (a MicroRemedError with the fix). */
  | { retry: false; error: Error };

export const realClock: RetryClock = {
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
  now: () => Date.now(),
  random: () => Math.random(),
};

/** Exponential backoff with "equal jitter": half fixed, half random, so waits never collapse to 0. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export async function withRetries<T>(
  label: string,
  attempt: (n: number) => Promise<T>,
  classify: (e: unknown) => RetryVerdict,
  policy: RetryPolicy,
  clock: RetryClock = realClock,
  signal?: AbortSignal,
): Promise<{ value: T; attempts: number }> {
  const start = clock.now();
  for (let n = 1; ; n++) {
    try {
      return { value: await attempt(n), attempts: n };
    } catch (e) {
      if (signal?.aborted)
        throw new MicroRemedError("E_INTERRUPTED", `${label}: the call was interrupted`, undefined, {
          cause: e,
          reason: "interrupted",
        });
      const verdict = classify(e);
      if (!verdict.retry) throw verdict.error;
      const giveUp = (why: string) =>
        new MicroRemedError(
          "E_MODEL",
          `${label} failed after ${n} attempt${n === 1 ? "" : "s"}${why}: ${verdict.reason}`,
          "the case is recorded as an error of the run and runs again on resume; retry later or raise defaults.retry in models/registry.yaml",
          { cause: e, reason: verdict.cause },
        );
      if (n >= policy.maxAttempts) throw giveUp("");
      // The server's hint wins over our backoff, even past maxDelayMs: it knows its limits.
      const delay = verdict.delayHintMs ?? backoffMs(n, policy, clock.random);
      if (clock.now() - start + delay > policy.maxTotalMs)
        throw giveUp(` (waiting ${seconds(delay)} more would pass the ${seconds(policy.maxTotalMs)} budget)`);
      try {
        await clock.sleep(delay, signal);
      } catch (abort) {
        throw new MicroRemedError(
          "E_INTERRUPTED",
          `${label}: interrupted while waiting to retry`,
          undefined,
          { cause: abort, reason: "interrupted" },
        );
      }
    }
  }
}
