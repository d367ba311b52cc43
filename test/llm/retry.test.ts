// The one retry loop, on its own: attempts, backoff with jitter, the server's hint, the time
// budget, and what is not retried. The clock is fake, so nothing waits.
import { describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { retryAfterMs } from "../../src/llm/providers/http-errors.js";
import {
  backoffMs,
  type RetryClock,
  type RetryPolicy,
  type RetryVerdict,
  withRetries,
} from "../../src/llm/retry.js";

const POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 4000, maxTotalMs: 60_000 };

/** Time moves only when the loop sleeps. */
function fakeClock(random = () => 0.5) {
  let t = 0;
  const sleeps: number[] = [];
  const clock: RetryClock = {
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    now: () => t,
    random,
  };
  return { clock, sleeps };
}

const transient = (reason = "503"): RetryVerdict => ({ retry: true, reason, cause: "outage" });

describe("withRetries", () => {
  it("returns the first success and how many attempts it took", async () => {
    const { clock, sleeps } = fakeClock();
    let n = 0;
    const out = await withRetries(
      "m",
      async () => (++n < 3 ? Promise.reject(new Error("x")) : "ok"),
      () => transient(),
      POLICY,
      clock,
    );
    expect(out).toEqual({ value: "ok", attempts: 3 });
    expect(sleeps).toEqual([750, 1500]);
  });

  it("backs off exponentially up to maxDelayMs, with equal jitter", () => {
    const low = [1, 2, 3, 4, 5].map((a) => backoffMs(a, POLICY, () => 0));
    const high = [1, 2, 3, 4, 5].map((a) => backoffMs(a, POLICY, () => 0.999999));
    expect(low).toEqual([500, 1000, 2000, 2000, 2000]);
    expect(high).toEqual([1000, 2000, 4000, 4000, 4000]);
  });

  it("stops at maxAttempts with E_MODEL carrying the last reason", async () => {
    const { clock } = fakeClock();
    let n = 0;
    const e = await withRetries(
      "gpt-x",
      async () => Promise.reject(new Error(`try ${++n}`)),
      (err) => transient((err as Error).message),
      POLICY,
      clock,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MicroRemedError);
    expect((e as MicroRemedError).code).toBe("E_MODEL");
    expect((e as MicroRemedError).message).toBe("gpt-x failed after 5 attempts: try 5");
    expect(n).toBe(5);
  });

  it("waits what the server asks even past maxDelayMs, but not past the total budget", async () => {
    const { clock, sleeps } = fakeClock();
    let n = 0;
    const hinted = (ms: number): RetryVerdict => ({
      retry: true,
      reason: "429",
      delayHintMs: ms,
      cause: "rate-limit",
    });
    await withRetries(
      "m",
      async () => (++n < 2 ? Promise.reject(new Error("429")) : "ok"),
      () => hinted(20_000),
      POLICY,
      clock,
    );
    expect(sleeps).toEqual([20_000]);

    const e = await withRetries(
      "m",
      async () => Promise.reject(new Error("429")),
      () => hinted(90_000),
      POLICY,
      fakeClock().clock,
    ).catch((x: unknown) => x);
    expect((e as MicroRemedError).message).toMatch(
      /failed after 1 attempt \(waiting 90 s more would pass the 60 s budget\): 429/,
    );
  });

  it("throws a non-retryable verdict's error at once", async () => {
    const { clock, sleeps } = fakeClock();
    const fatal = new MicroRemedError("E_MISSING_API_KEY", "bad key", "set X");
    let n = 0;
    const fail = async () => {
      n++;
      throw new Error("401");
    };
    const e = await withRetries("m", fail, () => ({ retry: false, error: fatal }), POLICY, clock).catch(
      (x: unknown) => x,
    );
    expect(e).toBe(fatal);
    expect(n).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it("stops when the run is interrupted, without another attempt", async () => {
    const ac = new AbortController();
    const { clock } = fakeClock();
    let n = 0;
    const fail = async () => {
      n++;
      ac.abort();
      throw new Error("aborted");
    };
    const e = await withRetries("m", fail, () => transient(), POLICY, clock, ac.signal).catch(
      (x: unknown) => x,
    );
    expect((e as MicroRemedError).code).toBe("E_INTERRUPTED");
    expect(n).toBe(1);
  });
});

describe("retryAfterMs", () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it("reads retry-after-ms first, then Retry-After seconds or date", () => {
    expect(retryAfterMs(headers({ "retry-after-ms": "1500", "retry-after": "9" }))).toBe(1500);
    expect(retryAfterMs(headers({ "retry-after": "2.5" }))).toBe(2500);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
