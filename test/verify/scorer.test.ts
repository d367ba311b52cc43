// The scorer over a clock that moves only when told and checks that say what they are told to:
// it settles first, reads each fault's check within the time its fault still holds, and reads
// health after it (waited for only when the reference check passed).
import { describe, expect, it } from "vitest";
import { CaseScorer, type HealthCheck, type ScorePlan } from "../../src/verify/scorer.js";
import { DEFAULT_TIMEOUTS, type Verdict, type Verifier, type VerifyContext } from "../../src/verify/types.js";
import { FakeClock } from "../helpers/clock.js";
import { offlineClient, simpleMicro } from "../helpers/offline.js";

const SETTLE = 10_000;
const pass = (reason = "recovered"): Verdict => ({ pass: true, reason, measurements: { m: 1 } });
const fail = (reason = "still broken"): Verdict => ({ pass: false, reason, measurements: { m: 0 } });

/** A check that takes `takesMs` of cluster time and then answers; it keeps what it was asked. */
function check(clock: FakeClock, answer: Verdict, takesMs = 0) {
  const seen: VerifyContext[] = [];
  const verifier: Verifier = {
    id: "pod",
    async verify(ctx) {
      seen.push(ctx);
      clock.advance(takesMs);
      return answer;
    },
  };
  return { verifier, seen };
}

function health(answer = pass("all workloads Ready")) {
  const waits: boolean[] = [];
  const h: HealthCheck = {
    async verify(_ctx, wait) {
      waits.push(wait);
      return answer;
    },
  };
  return { h, waits };
}

function scorer(clock: FakeClock, plan: ScorePlan) {
  const scope = {
    client: offlineClient(),
    time: clock,
    env: simpleMicro(),
    namespace: "shop",
    windowMs: 30_000,
    timeouts: DEFAULT_TIMEOUTS,
    settleMs: SETTLE,
  };
  return new CaseScorer(scope, plan);
}

describe("the scorer", () => {
  it("settles, then reads each fault's check in final mode and health waited for: both pass", async () => {
    const clock = new FakeClock();
    const a = check(clock, pass("a recovered"));
    const b = check(clock, pass("b recovered"));
    const { h, waits } = health();
    const s = await scorer(clock, {
      faults: [
        { check: a.verifier, service: "cart" },
        { check: b.verifier, service: "checkout" },
      ],
      health: h,
    }).score();
    expect(clock.sleeps).toEqual([SETTLE]);
    expect(a.seen.map((c) => [c.service, c.mode, c.namespace])).toEqual([["cart", "final", "shop"]]);
    expect(b.seen[0].service).toBe("checkout");
    expect(waits).toEqual([true]);
    expect(s).toMatchObject({ pass: true, reason: "all workloads Ready", reference: { pass: true } });
    expect(s.reference.reason).toBe("a recovered | b recovered");
  });

  it("a failed reference check decides: health is read once, not waited for", async () => {
    const clock = new FakeClock();
    const a = check(clock, fail("cart uses 98% CPU"));
    const { h, waits } = health();
    const s = await scorer(clock, { faults: [{ check: a.verifier, service: "cart" }], health: h }).score();
    expect(waits).toEqual([false]);
    expect(s).toMatchObject({ pass: false, reason: "cart uses 98% CPU", health: { pass: true } });
  });

  it("a fault that ends by its own duration before the check passes: fails with that reason", async () => {
    const clock = new FakeClock();
    const start = clock.now;
    // the chaos ends 60 s after the start; the check waits 90 s for the pods and then passes
    const a = check(clock, pass("cart pods Ready"), 90_000);
    const s = await scorer(clock, {
      faults: [{ check: a.verifier, service: "cart" }],
      health: health().h,
      faultsEndAt: start + 60_000,
    }).score();
    // it may wait no longer than the fault still holds after the settle: 50 s
    expect(a.seen[0].timeouts.readyMs).toBe(50_000);
    expect(s.pass).toBe(false);
    expect(s.reference).toMatchObject({
      pass: false,
      reason:
        "the fault's chaos had run its full duration 40 s before the check passed: a recovery then cannot be told from the fault's own end",
      measurements: { m: 1 },
    });
  });

  it("a fault that has ended before the check could run: the check is not run", async () => {
    const clock = new FakeClock();
    const a = check(clock, pass());
    const s = await scorer(clock, {
      faults: [{ check: a.verifier, service: "cart" }],
      health: health().h,
      faultsEndAt: clock.now + 4_000,
    }).score();
    expect(a.seen).toHaveLength(0);
    expect(s.reference.reason).toMatch(/^the fault's chaos had run its full duration 6 s before the check: /);
  });

  it("a check that passes while the fault still holds counts", async () => {
    const clock = new FakeClock();
    const a = check(clock, pass("cart pods Ready"), 20_000);
    const s = await scorer(clock, {
      faults: [{ check: a.verifier, service: "cart" }],
      health: health().h,
      faultsEndAt: clock.now + 60_000,
    }).score();
    expect(s).toMatchObject({ pass: true, reference: { pass: true, reason: "cart pods Ready" } });
  });

  it("holds: every check is read again over the window, without waiting, and a fix that holds passes", async () => {
    const clock = new FakeClock();
    const a = check(clock, pass("cart pods Ready"));
    const { h, waits } = health();
    const s = await scorer(clock, {
      faults: [{ check: a.verifier, service: "cart" }],
      health: h,
      holdMs: 60_000,
    }).score();
    // the settle, then readings every 6 s (a tenth of the hold, at least 5 s) until 60 s have passed
    expect(clock.sleeps).toEqual([SETTLE, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000]);
    expect(a.seen).toHaveLength(11);
    // the hold's readings look once: no wait for readiness
    expect(a.seen.slice(1).every((c) => c.timeouts.readyMs === 0)).toBe(true);
    expect(waits).toEqual([true, ...Array(10).fill(false)]);
    expect(s).toMatchObject({ pass: true, held: { ms: 60_000 } });
  });

  // The first reading must pass within the faults' lives (else the fault's own end cannot be told
  // from a repair); the hold's readings watch for the repair coming undone, and a reading that
  // ends after the chaos's duration still counts (at speed 600 a reading's execs can take minutes
  // of cluster time: a repaired case failed 453 s into its 60 s hold)
  it("holds past the faults' end: the hold's readings count whenever they end", async () => {
    const clock = new FakeClock();
    const slow = check(clock, pass("cart pods Ready"), 30_000);
    const s = await scorer(clock, {
      faults: [{ check: slow.verifier, service: "cart" }],
      health: health().h,
      holdMs: 60_000,
      faultsEndAt: clock.now + SETTLE + 40_000,
    }).score();
    expect(s).toMatchObject({ pass: true, held: { ms: 60_000 } });
    expect(slow.seen.length).toBeGreaterThan(2);
    const reverted = [pass("cart pods Ready"), pass("cart pods Ready"), fail("cart 0/1 Ready")];
    let n = 0;
    const flapping: Verifier = { id: "pod", verify: async () => reverted[Math.min(n++, 2)] };
    const late = await scorer(clock, {
      faults: [{ check: flapping, service: "cart" }],
      health: health().h,
      holdMs: 60_000,
      faultsEndAt: clock.now + SETTLE + 1_000,
    }).score();
    expect(late).toMatchObject({
      pass: false,
      reason: expect.stringMatching(/^the checks passed, then failed 12 s into/),
    });
  });

  it("a fix that reverts within the hold fails, saying which check and when", async () => {
    const clock = new FakeClock();
    const answers = [
      pass("cart pods Ready"),
      pass("cart pods Ready"),
      pass("cart pods Ready"),
      fail("cart 0/1 Ready, CrashLoopBackOff"),
    ];
    const seen: VerifyContext[] = [];
    const flapping: Verifier = {
      id: "rollout",
      async verify(ctx) {
        seen.push(ctx);
        return answers[Math.min(seen.length, answers.length) - 1];
      },
    };
    const s = await scorer(clock, {
      faults: [{ check: flapping, service: "cart" }],
      health: health().h,
      holdMs: 60_000,
    }).score();
    expect(s.pass).toBe(false);
    expect(s.held).toEqual({ ms: 60_000, failedAtMs: 18_000 });
    expect(s.reason).toBe(
      "the checks passed, then failed 18 s into the 60 s hold: cart 0/1 Ready, CrashLoopBackOff",
    );
    expect(s.reference.pass).toBe(false);
  });

  it("judges what users see beside the faults' checks; a failing user check decides before health", async () => {
    const clock = new FakeClock();
    const a = check(clock, pass("cart is rolled out"));
    const { h, waits } = health();
    const asked: [string, boolean][] = [];
    const s = await scorer(clock, {
      faults: [{ check: a.verifier, service: "cart" }],
      health: h,
      user: {
        async verify(_scope, mode, wait) {
          asked.push([mode, wait]);
          return fail("users see failures: cart: 3 of 3 requests failed (500)");
        },
      },
    }).score();
    expect(asked).toEqual([["final", true]]);
    expect(waits).toEqual([false]);
    expect(s).toMatchObject({
      pass: false,
      reason: "users see failures: cart: 3 of 3 requests failed (500)",
    });
    expect(s.user?.pass).toBe(false);
  });
});
