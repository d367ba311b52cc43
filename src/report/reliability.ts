// Reliability over repeated trials (`run --trials k`): pass@1, pass@k and pass^k with their 95%
// intervals per model × method × level × tier and per failure type, from the estimators of
// runlog/passk.ts. Cases are those of each run (a case of one run is not the same case as the
// same index of another run), pooled over the runs of a cell.
import { type PassK, passK } from "../runlog/passk.js";
import type { CaseRecord } from "../runlog/records.js";
import { trialOutcomes } from "../runlog/summary.js";
import type { LevelRun, LoadedRun, Series } from "./runs.js";

export interface ReliabilityRow extends Series {
  tier: string;
  /** Trials per case of these runs (the k of pass@k). */
  k: number;
  /** null when no case had k evaluated trials (errors and injection failures are left out). */
  passK: PassK | null;
}

export interface Reliability {
  byTier: ReliabilityRow[];
  /** Rows: failure types; cells: one per entry of the report's series (null: no case with k evaluated trials). */
  perFailure: { failure: string; cells: (PassK | null)[] }[];
}

function pooled(runs: LoadedRun[], keep: (c: CaseRecord) => boolean = () => true): PassK | null {
  const k = Math.max(1, ...runs.map((r) => r.trials));
  return (
    passK(
      runs.flatMap((r) => trialOutcomes(r.cases.filter(keep))),
      k,
    ) ?? null
  );
}

/** undefined unless some run has more than one trial per case. */
export function reliability(
  runs: LevelRun[],
  series: Series[],
  tiers: string[],
  failures: string[],
): Reliability | undefined {
  const repeated = runs.filter((r) => r.trials > 1);
  if (!repeated.length) return undefined;
  const of = (s: Series) =>
    repeated.filter((r) => r.model === s.model && r.method === s.method && r.level === s.level);
  const byTier = series.flatMap((s) =>
    tiers
      .map((tier) => of(s).filter((r) => r.tier === tier))
      .filter((rs) => rs.length > 0)
      .map((rs) => ({
        model: s.model,
        method: s.method,
        level: s.level,
        tier: rs[0].tier,
        k: Math.max(...rs.map((r) => r.trials)),
        passK: pooled(rs),
      })),
  );
  const perFailure = failures
    .map((failure) => ({
      failure,
      cells: series.map((s) => (of(s).length ? pooled(of(s), (c) => c.failure === failure) : null)),
    }))
    .filter((row) => row.cells.some((c) => c !== null));
  return { byTier, perFailure };
}
