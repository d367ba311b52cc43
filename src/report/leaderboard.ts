// The leaderboard's rows: one per model × method × tier × report level, pooled over the runs
// (and systems) that share them. The report level is what the method was told
// (--report full|service|symptom; runs.ts's levelOf). Success with its 95% Wilson interval,
// pass@k where the runs had --trials, and cost and remediation time per success: everything the
// cell's cases spent, over the cases they repaired.
import { localizationFigures } from "../runlog/localization.js";
import { type PassK, passK } from "../runlog/passk.js";
import type { CaseRecord } from "../runlog/records.js";
import { trialOutcomes } from "../runlog/summary.js";
import type { Interval } from "../runlog/wilson.js";
import type { LevelRun, Series } from "./runs.js";
import { computeStats } from "./stats.js";

export interface LeaderboardRow extends Series {
  tier: string;
  evaluated: number;
  successes: number;
  successRate: number | null;
  interval: Interval | null;
  /** Where some run of the row had more than one trial per case. */
  passK: PassK | null;
  /** USD spent by the row's cases per success; null without prices or successes. */
  costPerSuccess: number | null;
  /** Remediation seconds of the evaluated cases per success (cluster time, runner/timing.ts). */
  secondsPerSuccess: number | null;
  /** Incidents: the share of evaluated cases whose stated diagnosis named every cause (ITBench's strict score); null elsewhere. */
  allCausesFound: number | null;
}

type Key = Series & { tier: string };

export function leaderboard(runs: LevelRun[]): LeaderboardRow[] {
  const groups = new Map<string, { key: Key; cases: CaseRecord[]; outcomes: boolean[][]; k: number }>();
  for (const run of runs) {
    // a run that recorded no case yet has no row (the tables show it with 0 cases)
    if (!run.cases.length) continue;
    const key: Key = { model: run.model, method: run.method, tier: run.tier, level: run.level };
    const id = JSON.stringify(key);
    const g = groups.get(id) ?? { key, cases: [], outcomes: [], k: 1 };
    g.cases.push(...run.cases);
    g.k = Math.max(g.k, run.trials);
    // a case of one run is not the same case as the same index of another: trials per run
    g.outcomes.push(...trialOutcomes(run.cases));
    groups.set(id, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g.key, ...numbers(g.cases, g.outcomes, g.k) }))
    .sort(
      (a, b) =>
        (b.successRate ?? -1) - (a.successRate ?? -1) ||
        (b.interval?.low ?? -1) - (a.interval?.low ?? -1) ||
        a.model.localeCompare(b.model) ||
        a.method.localeCompare(b.method),
    );
}

function numbers(cases: CaseRecord[], outcomes: boolean[][], k: number) {
  const s = computeStats(cases);
  const seconds = cases
    .map((c) => c.remediationSeconds)
    .filter((x): x is number => typeof x === "number")
    .reduce((a, b) => a + b, 0);
  return {
    evaluated: s.evaluated,
    successes: s.successes,
    successRate: s.successRate,
    interval: s.interval,
    passK: k > 1 ? (passK(outcomes, k) ?? null) : null,
    costPerSuccess: s.cost && s.successes ? Math.round((s.cost.usd / s.successes) * 1e6) / 1e6 : null,
    secondsPerSuccess: s.successes && seconds ? Math.round((seconds / s.successes) * 10) / 10 : null,
    allCausesFound: localizationFigures(cases).causes?.allFound.rate ?? null,
  };
}
