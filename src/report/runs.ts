// A run as the report reads it (load.ts finds and reads it, shards.ts merges a run's shards), its
// cases split by report level (what the report groups), and the series they belong to: the model,
// method and level whose cases the tables and charts pool. Cases told different things are never
// pooled: a full report's 4/4 and a symptom alert's 0/4 are two rows, not one of 4/8.
import { REPORT_LEVELS } from "../diagnosis/levels.js";
import type { CaseRecord } from "../runlog/records.js";

export interface LoadedRun {
  dir: string;
  /** The system (run.json config.env). */
  env: string;
  /** easy / medium / hard, or the name of a custom experiment file. */
  tier: string;
  model: string;
  method: string;
  /** What decides which cases a run holds (run.json), for pairing two runs case by case. */
  plan: { experimentPath?: string; seed?: number; experiments?: number | null };
  /** The last record of each case (and trial): a case re-run after an error counts once. */
  cases: CaseRecord[];
  /** Runs of each case (--trials; 1 for runs recorded before trials existed). */
  trials: number;
  /** run.json's config, the run's identity (shard included). */
  config?: Record<string, unknown>;
  /** Cases in the whole plan before sharding (run.json plannedCases). */
  plannedCases?: number;
  /** "i/n" for a shard of a run (--shard), null otherwise. */
  shard: string | null;
  /** How the agent was confined (run.json): its RBAC access and the host sandbox. */
  confinement: { agentAccess: string; sandbox: string };
  /** A run merged from its shards' folders: the shards, each as loaded (their traces live there). */
  parts?: LoadedRun[];
}

/** The cases of a run at one report level: a run has one level, unless its records say otherwise. */
export interface LevelRun extends LoadedRun {
  level: string;
}

/** A model with a method at a report level: one column of the tables, one colour of the charts. */
export interface Series {
  model: string;
  method: string;
  level: string;
}

const str = (x: unknown) => (typeof x === "string" && x ? x : undefined);

/** The level a case or its run recorded (its own `report`, else run.json's config.report), if any. */
export const recordedLevel = (run: LoadedRun, c?: CaseRecord) => str(c?.report) ?? str(run.config?.report);

/**
 * The report level a case was run at: its own `report`, else its run's config.report, else "full"
 * (runs made before levels existed told everything).
 */
export const levelOf = (run: LoadedRun, c?: CaseRecord) => recordedLevel(run, c) ?? "full";

/** The levels from most told to least (REPORT_LEVELS' order), any other after them by name. */
export function sortLevels(levels: Iterable<string>): string[] {
  const order: readonly string[] = REPORT_LEVELS;
  const rank = (l: string) => (order.includes(l) ? order.indexOf(l) : order.length);
  return [...new Set(levels)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Each run's cases per report level, in the runs' order; a run without cases keeps its own level. */
export function splitLevels(runs: LoadedRun[]): LevelRun[] {
  return runs.flatMap((run) => {
    if (!run.cases.length) return [{ ...run, level: levelOf(run) }];
    return sortLevels(run.cases.map((c) => levelOf(run, c))).map((level) => ({
      ...run,
      level,
      cases: run.cases.filter((c) => levelOf(run, c) === level),
    }));
  });
}

/**
 * "model / method", and " · level" when the report holds more than one level (where its tables
 * carry a level column); a report at one level says which in its opening line.
 */
export const seriesLabeller =
  (levels: string[]) =>
  (s: Series): string =>
    levels.length > 1 ? `${s.model} / ${s.method} · ${s.level}` : `${s.model} / ${s.method}`;

/** "4 model × method", or "6 model × method × level" where the report holds several levels. */
export const seriesCount = (r: { series: Series[]; levels: string[] }) =>
  `${r.series.length} model × method${r.levels.length > 1 ? " × level" : ""}`;

/** The report's opening names its levels: a column says them only where rows differ by them. */
export const levelsText = (r: { levels: string[] }) =>
  `Report level${r.levels.length > 1 ? "s" : ""}: ${r.levels.join(", ")}${r.levels.length === 1 && r.levels[0] === "full" ? " (the reference's report)" : ""}.`;
