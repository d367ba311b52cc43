// The numbers of one cell of the report (a model × method × tier, a system, a failure type), in
// the report's shape: the figures are src/runlog/figures.ts's, the same a run's summary prints,
// so a report over one run agrees with that summary to the last digit.
import { type Figures, figuresOf, ratio, round } from "../runlog/figures.js";
import type { CaseRecord } from "../runlog/records.js";

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

/** A cell's figures: the run's own (figures.ts), with tokens, cost and verdicts in the report's shape. */
export interface Stats
  extends Pick<
    Figures,
    | "cases"
    | "evaluated"
    | "successes"
    | "successRate"
    | "interval"
    | "injectionFailures"
    | "interrupted"
    | "errors"
    | "attemptsPerSuccess"
    | "meanRemediationSeconds"
  > {
  tokens: { input: number; output: number; perCase: number | null };
  /** null when no case reported a price (the model is not in the registry's price list). */
  cost: { usd: number; perCase: number | null } | null;
  verdicts: VerdictStats;
}

export function computeStats(recs: CaseRecord[]): Stats {
  const f = figuresOf(recs);
  const usd = f.tokens.costUsd ?? 0;
  return {
    cases: f.cases,
    evaluated: f.evaluated,
    successes: f.successes,
    successRate: f.successRate,
    interval: f.interval,
    injectionFailures: f.injectionFailures,
    interrupted: f.interrupted,
    errors: f.errors,
    attemptsPerSuccess: f.attemptsPerSuccess,
    meanRemediationSeconds: f.meanRemediationSeconds,
    tokens: { input: f.tokens.inputTokens, output: f.tokens.outputTokens, perCase: f.tokensPerCase },
    cost: usd > 0 ? { usd: round(usd, 6), perCase: f.costPerCase } : null,
    verdicts: {
      referencePasses: f.referencePasses,
      referenceRate: ratio(f.referencePasses, f.evaluated),
      healthPasses: f.healthPasses,
      healthRate: ratio(f.healthPasses, f.evaluated),
      referencePassHealthFail: f.referencePassHealthFail,
    },
  };
}
