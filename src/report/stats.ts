// The numbers of one cell of the report (a model × method × tier, a system, a failure type),
// computed from case records the way src/runlog/summary.ts computes a run's summary, so a report
// over one run agrees with the summary that run printed. Injection failures, interrupted cases
// and harness errors say nothing about the method: they are counted apart, never in the rate.
import { isEvaluated } from "../outcome.js";
import type { CaseRecord } from "../runlog/records.js";
import { type Interval, wilson } from "../runlog/wilson.js";

export interface VerdictStats {
  /** Evaluated cases whose reference check (the fault's own verifier) passed. */
  referencePasses: number;
  referenceRate: number | null;
  /** Evaluated cases whose no-collateral-damage check (the namespace's health) passed. */
  healthPasses: number;
  healthRate: number | null;
  /** Passed the reference check but broke something else: a reference-only benchmark counts these as successes. */
  referencePassHealthFail: number;
}

export interface Stats {
  cases: number;
  /** success + failure: the denominator of the rate. */
  evaluated: number;
  successes: number;
  successRate: number | null;
  /** 95% Wilson interval of the success rate. */
  interval: Interval | null;
  injectionFailures: number;
  interrupted: number;
  errors: number;
  attemptsPerSuccess: number | null;
  /** Cluster seconds from injection to verdict, over evaluated cases. */
  meanRemediationSeconds: number | null;
  tokens: { input: number; output: number; perCase: number | null };
  /** null when no case reported a price (the model is not in the registry's price list). */
  cost: { usd: number; perCase: number | null } | null;
  verdicts: VerdictStats;
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
const ratio = (a: number, n: number, d = 4) => (n ? round(a / n, d) : null);

export function computeStats(recs: CaseRecord[]): Stats {
  const evaluated = recs.filter((r) => isEvaluated(r.status));
  const successes = evaluated.filter((r) => r.success);
  const n = evaluated.length;
  const times = evaluated.map((r) => r.remediationSeconds).filter((x): x is number => typeof x === "number");
  const input = recs.reduce((s, r) => s + (r.tokens?.inputTokens ?? 0), 0);
  const output = recs.reduce((s, r) => s + (r.tokens?.outputTokens ?? 0), 0);
  // addUsage sums an absent cost as 0, so a record's 0 cannot be told from "no price": a cost is
  // known only when some case reported a positive one
  const costed = recs.some((r) => (r.tokens?.costUsd ?? 0) > 0);
  const usd = recs.reduce((s, r) => s + (r.tokens?.costUsd ?? 0), 0);
  const interval = wilson(successes.length, n);
  const ref = evaluated.filter((r) => r.verdicts?.reference?.pass);
  const health = evaluated.filter((r) => r.verdicts?.health?.pass);
  return {
    cases: recs.length,
    evaluated: n,
    successes: successes.length,
    successRate: ratio(successes.length, n),
    interval: interval && { low: round(interval.low, 4), high: round(interval.high, 4) },
    injectionFailures: recs.filter((r) => r.status === "injection-failure").length,
    interrupted: recs.filter((r) => r.status === "interrupted").length,
    errors: recs.filter((r) => r.status === "error").length,
    attemptsPerSuccess: ratio(
      successes.reduce((s, r) => s + r.attempts, 0),
      successes.length,
      2,
    ),
    meanRemediationSeconds: times.length ? round(times.reduce((a, b) => a + b, 0) / times.length, 1) : null,
    // per evaluated case, as summarize() does: tokens of harness errors are still money spent
    tokens: { input, output, perCase: n ? Math.round((input + output) / n) : null },
    cost: costed ? { usd: round(usd, 6), perCase: ratio(usd, n, 6) } : null,
    verdicts: {
      referencePasses: ref.length,
      referenceRate: ratio(ref.length, n),
      healthPasses: health.length,
      healthRate: ratio(health.length, n),
      referencePassHealthFail: ref.filter((r) => !r.verdicts.health?.pass).length,
    },
  };
}
