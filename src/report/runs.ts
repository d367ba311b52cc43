// A run as the report reads it (load.ts finds and reads it, shards.ts merges a run's shards), and
// the series it belongs to: the model and method whose cases the tables and charts pool.
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

/** A model with a method: one column of the tables, one colour of the charts. */
export interface Series {
  model: string;
  method: string;
}

export const seriesLabel = (s: Series) => `${s.model} / ${s.method}`;
