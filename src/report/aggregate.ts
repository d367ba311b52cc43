// Merging loaded runs into the report's data: the cells the tables, the charts and --format json
// all read. Runs of the same model, method, tier and report level (a run resumed into another
// folder, the same tier on two systems) are pooled case by case, so rates and intervals are over
// all their cases; cases told different things (--report full, service, symptom) never are.
import { isEvaluated } from "../outcome.js";
import { type LocalizationFigures, localizationFigures } from "../runlog/localization.js";
import type { CaseRecord } from "../runlog/records.js";
import { countReasons } from "../runlog/summary.js";
import { type DiffReport, diffSeries } from "./diff.js";
import { type LeaderboardRow, leaderboard } from "./leaderboard.js";
import { orderCodes } from "./reason-table.js";
import { type Reliability, reliability } from "./reliability.js";
import {
  type LevelRun,
  type LoadedRun,
  levelOf,
  recordedLevel,
  type Series,
  seriesLabeller,
  sortLevels,
  splitLevels,
} from "./runs.js";
import { computeStats, type Stats } from "./stats.js";

export interface RunOutcome {
  index: number;
  trial?: number;
  failure: string;
  target: string;
  status: CaseRecord["status"];
  reason?: string;
  /** The report level, where the case or its run recorded one, and whether the agent localized the fault. */
  report?: string;
  localized?: boolean;
  /** The diagnosis the agent stated: the service it named, and whether that is a fault's. */
  diagnosis?: { service: string; correct: boolean };
}

const outcomeOf =
  (run: LoadedRun) =>
  (c: CaseRecord): RunOutcome => {
    const level = recordedLevel(run, c);
    return {
      index: c.index,
      ...(c.trial ? { trial: c.trial } : {}),
      failure: c.failure,
      target: c.target,
      status: c.status,
      ...(c.reason ? { reason: c.reason.code } : {}),
      ...(level ? { report: level } : {}),
      ...(c.localization ? { localized: c.localization.localized } : {}),
      ...(c.diagnosis ? { diagnosis: { service: c.diagnosis.service, correct: c.diagnosis.correct } } : {}),
    };
  };

export interface FailureCell {
  evaluated: number;
  successes: number;
  successRate: number | null;
}

export interface Report {
  generatedAt: string;
  runs: {
    dir: string;
    env: string;
    tier: string;
    model: string;
    method: string;
    /** The report levels of its cases (one, unless its records say otherwise). */
    levels: string[];
    cases: number;
    trials: number;
    /** The agent's RBAC access (namespace | cluster-admin) and the host sandbox (bwrap | none). */
    agentAccess: string;
    sandbox: string;
    /** A run merged from its shards: their folders. */
    shards?: string[];
    /** Each case (and trial) as it counts: the last record of each. */
    outcomes: RunOutcome[];
  }[];
  /** Every model × method × report level, in the order of the tables and the charts' legends. */
  series: Series[];
  tiers: string[];
  /** The report levels of the cases, most told first (runs from before levels: full). */
  levels: string[];
  byTier: (Series & { tier: string; systems: string[] } & Stats)[];
  /** All tiers pooled: the points of the cost-against-success chart. */
  bySeries: (Series & Stats)[];
  perSystem: (Series & { env: string } & Stats)[];
  /** Rows: failure types; cells: one per entry of `series` (null: none of its cases had that failure). */
  perFailure: { failure: string; cells: (FailureCell | null)[] }[];
  /**
   * Per model × method × tier × level, over evaluated cases: success beside localized and their
   * crossings, and the diagnoses stated and correct, with 95% intervals (runlog/localization.ts).
   * `scored`: the evaluated cases whose localization was scored (none in runs from before it was).
   */
  localization: (Series & { tier: string; scored: number } & LocalizationFigures)[];
  /** Reason codes that occur, in the order of the table of codes. */
  reasonCodes: string[];
  /** Cases that did not succeed per model × method × tier × level, by reason code. */
  reasons: (Series & { tier: string; counts: Record<string, number> })[];
  /** The same per failure type: one cell per entry of `series`. */
  reasonsPerFailure: { failure: string; cells: Record<string, number>[] }[];
  /** When some run has --trials k > 1: pass@1, pass@k and pass^k. */
  reliability?: Reliability;
  /** Exactly two series: their cases paired by index, per tier and system. */
  diff?: DiffReport;
  /** Model × method × tier × report level, best success first (leaderboard.ts). */
  leaderboard: LeaderboardRow[];
}

const TIER_ORDER = ["easy", "medium", "hard"];

/** The reference's tiers in difficulty order, custom experiment files after them by name. */
export function sortTiers(tiers: Iterable<string>): string[] {
  const rank = (t: string) => (TIER_ORDER.includes(t) ? TIER_ORDER.indexOf(t) : TIER_ORDER.length);
  return [...new Set(tiers)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Groups runs' cases under a key, keeping the runs' own fields (env, tier...) of the first seen. */
function groupBy<K extends string>(runs: LevelRun[], key: (r: LevelRun) => Record<K, string>) {
  const groups = new Map<string, { fields: Record<K, string>; cases: CaseRecord[]; systems: Set<string> }>();
  for (const run of runs) {
    const fields = key(run);
    const id = JSON.stringify(fields);
    const g = groups.get(id) ?? { fields, cases: [], systems: new Set<string>() };
    g.cases.push(...run.cases);
    g.systems.add(run.env);
    groups.set(id, g);
  }
  return [...groups.values()];
}

export function buildReport(loaded: LoadedRun[], now = new Date()): Report {
  const runs = splitLevels(loaded);
  const levels = sortLevels(runs.map((r) => r.level));
  const seriesKey = (s: Series) => `${s.model}\u0000${s.method}\u0000${s.level}`;
  const seriesOf = (r: LevelRun): Series => ({ model: r.model, method: r.method, level: r.level });
  const series = groupBy(runs, seriesOf)
    .map((g) => g.fields)
    .sort(
      (a, b) =>
        a.model.localeCompare(b.model) ||
        a.method.localeCompare(b.method) ||
        levels.indexOf(a.level) - levels.indexOf(b.level),
    );
  const order = new Map(series.map((s, i) => [seriesKey(s), i]));
  const tiers = sortTiers(runs.map((r) => r.tier));
  const bySeriesThen = (a: Series, b: Series) => order.get(seriesKey(a))! - order.get(seriesKey(b))!;
  const byTierKey = (r: LevelRun) => ({ ...seriesOf(r), tier: r.tier });
  const bySeriesThenTier = (a: Series & { tier: string }, b: Series & { tier: string }) =>
    bySeriesThen(a, b) || tiers.indexOf(a.tier) - tiers.indexOf(b.tier);

  const byTier = groupBy(runs, byTierKey)
    .map((g) => ({ ...g.fields, systems: [...g.systems].sort(), ...computeStats(g.cases) }))
    .sort(bySeriesThenTier);
  const bySeries = groupBy(runs, seriesOf)
    .map((g) => ({ ...g.fields, ...computeStats(g.cases) }))
    .sort(bySeriesThen);
  const perSystem = groupBy(runs, (r) => ({ env: r.env, ...seriesOf(r) }))
    .map((g) => ({ ...g.fields, ...computeStats(g.cases) }))
    .sort((a, b) => a.env.localeCompare(b.env) || bySeriesThen(a, b));
  const localization = groupBy(runs, byTierKey)
    .map((g) => ({
      ...g.fields,
      scored: g.cases.filter((c) => isEvaluated(c.status) && c.localization).length,
      ...localizationFigures(g.cases),
    }))
    .sort(bySeriesThenTier);

  // failure types of evaluated cases only: an injection failure says nothing about repairing it
  const cells = new Map<string, FailureCell[]>();
  for (const run of runs) {
    const col = order.get(seriesKey(run))!;
    for (const c of run.cases) {
      if (!isEvaluated(c.status)) continue;
      const row =
        cells.get(c.failure) ?? series.map(() => ({ evaluated: 0, successes: 0, successRate: null }));
      row[col].evaluated++;
      if (c.success) row[col].successes++;
      cells.set(c.failure, row);
    }
  }
  const perFailure = [...cells.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([failure, row]) => ({
      failure,
      cells: row.map((c) =>
        c.evaluated ? { ...c, successRate: Math.round((c.successes / c.evaluated) * 1e4) / 1e4 } : null,
      ),
    }));

  const reasons = groupBy(runs, byTierKey)
    .map((g) => ({ ...g.fields, counts: countReasons(g.cases) }))
    .sort(bySeriesThenTier);
  const failures = [...new Set(runs.flatMap((r) => r.cases.map((c) => c.failure)))].sort();
  const reasonsPerFailure = failures
    .map((failure) => ({
      failure,
      cells: series.map((s) =>
        countReasons(
          runs
            .filter((r) => seriesKey(r) === seriesKey(s))
            .flatMap((r) => r.cases.filter((c) => c.failure === failure)),
        ),
      ),
    }))
    .filter((row) => row.cells.some((c) => Object.keys(c).length > 0));
  const reasonCodes = orderCodes(reasons.flatMap((x) => Object.keys(x.counts)));
  const rel = reliability(runs, series, tiers, failures);
  const label = seriesLabeller(levels);

  return {
    generatedAt: now.toISOString(),
    runs: loaded.map((r) => ({
      dir: r.dir,
      env: r.env,
      tier: r.tier,
      model: r.model,
      method: r.method,
      levels: r.cases.length ? sortLevels(r.cases.map((c) => levelOf(r, c))) : [levelOf(r)],
      cases: r.cases.length,
      trials: r.trials,
      agentAccess: r.confinement.agentAccess,
      sandbox: r.confinement.sandbox,
      ...(r.parts ? { shards: r.parts.map((p) => p.dir) } : {}),
      outcomes: r.cases.map(outcomeOf(r)),
    })),
    series,
    tiers,
    levels,
    byTier,
    bySeries,
    perSystem,
    perFailure,
    localization,
    reasonCodes,
    reasons,
    reasonsPerFailure,
    ...(rel ? { reliability: rel } : {}),
    ...(series.length === 2 ? { diff: diffSeries(runs, series[0], series[1], label) } : {}),
    leaderboard: leaderboard(runs),
  };
}
