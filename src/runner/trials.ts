// Repeated trials and shards. `--trials k` runs each case k times (a fresh injection each time,
// the same target: the plan is drawn once from the seed); `--shard i/n` runs a deterministic
// slice of the cases, so that n machines together run exactly the unsharded run's cases.
import { usageError } from "../errors.js";
import type { PlannedCase } from "./experiments.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function parseShard(v: string): Shard {
  const m = v.match(/^(\d+)\/(\d+)$/);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count)
    throw usageError(
      `--shard must be i/n with 1 ≤ i ≤ n, got "${v}"`,
      "e.g. --shard 1/4 on the first of four machines",
    );
  return { index, count };
}

export const shardLabel = (s: Shard) => `${s.index}/${s.count}`;

/** The cases of one shard: every n-th case, starting at the i-th (by case index, not by position). */
export function shardCases(plan: PlannedCase[], shard?: Shard): PlannedCase[] {
  if (!shard) return plan;
  return plan.filter((c) => (c.index - 1) % shard.count === shard.index - 1);
}

/** One run of one case: trial 1..k. */
export interface PlannedTrial {
  case: PlannedCase;
  trial: number;
}

export function expandTrials(plan: PlannedCase[], trials = 1): PlannedTrial[] {
  return plan.flatMap((c) => Array.from({ length: trials }, (_, t) => ({ case: c, trial: t + 1 })));
}
