// The figures of a set of case records, computed in one place with one rounding: the run's
// summary (summary.ts) and every cell of the report (src/report/stats.ts) read them, so a report
// over one run agrees with the summary that run printed. Injection failures, interrupted cases
// and errors of the run say nothing about the method: they are counted apart, never in a rate.
import { addUsage, emptyUsage, type Usage } from "../llm/types.js";
import { isEvaluated } from "../outcome.js";
import type { CaseRecord } from "./records.js";
import { type Interval, wilson } from "./wilson.js";

/** A rate or a bound as every figure keeps it: three decimals (the printed 0.1% is what they show). */
export const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** a over n, rounded; null over nothing. */
export const ratio = (a: number, n: number, d = 3) => (n ? round(a / n, d) : null);

/** A rate as text: "66.7%", or "-" for none. */
export const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);

export interface Figures {
  cases: number;
  /** success + failure: the denominator of every rate. */
  evaluated: number;
  successes: number;
  /** Successes over evaluated cases; null when no case was evaluated (every one an error of the run). */
  successRate: number | null;
  /** 95% Wilson interval of the success rate. */
  interval: Interval | null;
  injectionFailures: number;
  interrupted: number;
  errors: number;
  attemptsPerSuccess: number | null;
  /** Mean remediationSeconds over evaluated cases (the reference's "Average Remediation Time"). */
  meanRemediationSeconds: number | null;
  /** The same over successes ("Average Remediation Time per Success"). */
  meanRemediationSecondsPerSuccess: number | null;
  /** Every case's tokens, harness errors' too: they are still money spent. */
  tokens: Usage;
  /** Input + output tokens per evaluated case. */
  tokensPerCase: number | null;
  /** Input + output tokens of the successful cases, per success. */
  tokensPerSuccess: number | null;
  /** The price over evaluated cases; null when no case reported one (the model has no price). */
  costPerCase: number | null;
  /** Evaluated cases whose reference check (the fault's own verifier) passed. */
  referencePasses: number;
  /** Evaluated cases whose no-collateral-damage check (the namespace's health) passed. */
  healthPasses: number;
  /** Passed the reference check but broke something else: a reference-only benchmark counts these as successes. */
  referencePassHealthFail: number;
}

const tokensOf = (r: CaseRecord) => r.tokens.inputTokens + r.tokens.outputTokens;
const mean = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length, 1) : null);
const seconds = (rs: CaseRecord[]) =>
  rs.map((r) => r.remediationSeconds).filter((x): x is number => typeof x === "number");

export function figuresOf(recs: CaseRecord[]): Figures {
  const evaluated = recs.filter((r) => isEvaluated(r.status));
  const successes = evaluated.filter((r) => r.success);
  const n = evaluated.length;
  const tokens = recs.reduce((u, r) => addUsage(u, r.tokens ?? emptyUsage()), emptyUsage());
  const interval = wilson(successes.length, n);
  const ref = evaluated.filter((r) => r.verdicts?.reference?.pass);
  // addUsage sums an absent cost as 0, so a record's 0 cannot be told from "no price": a cost is
  // known only when some case reported a positive one
  const usd = tokens.costUsd ?? 0;
  return {
    cases: recs.length,
    evaluated: n,
    successes: successes.length,
    successRate: ratio(successes.length, n),
    interval: interval && { low: round(interval.low), high: round(interval.high) },
    injectionFailures: recs.filter((r) => r.status === "injection-failure").length,
    interrupted: recs.filter((r) => r.status === "interrupted").length,
    errors: recs.filter((r) => r.status === "error").length,
    attemptsPerSuccess: ratio(
      successes.reduce((s, r) => s + r.attempts, 0),
      successes.length,
      2,
    ),
    meanRemediationSeconds: mean(seconds(evaluated)),
    meanRemediationSecondsPerSuccess: mean(seconds(successes)),
    tokens,
    tokensPerCase: n ? Math.round((tokens.inputTokens + tokens.outputTokens) / n) : null,
    tokensPerSuccess: successes.length
      ? Math.round(successes.reduce((s, r) => s + tokensOf(r), 0) / successes.length)
      : null,
    costPerCase: usd > 0 ? ratio(usd, n, 6) : null,
    referencePasses: ref.length,
    healthPasses: evaluated.filter((r) => r.verdicts?.health?.pass).length,
    referencePassHealthFail: ref.filter((r) => !r.verdicts.health?.pass).length,
  };
}
