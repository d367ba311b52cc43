// How far behind the wall clock an embedded cluster should be: the cluster time its fast phases
// will gain (docs/clock.md). The cluster never shows a time ahead of the wall clock, so a lead too
// small makes the last of it wait at speed 1; one too large is what a model reads as the gap
// between the host's clock and the cluster's (kubectl describe's event ages). So it is sized to
// what is ahead: before each case the runner asks for that case's own (caseLead), and the cluster
// starts with enough for the deploys and the first case. A case's cluster time, at most, as
// measured on the tiers (a medium case on Simple-Micro with the oracle: about 11 minutes, its
// confirm window and the checks' waits), plus what the case's own windows add.

import { catalog } from "../faults/catalog.js";
import type { RunConfig } from "./config.js";
import type { PlannedCase } from "./experiments.js";
import { RUN_OPTIONS } from "./options.js";
import { shardCases } from "./trials.js";

const MINUTE = 60_000;
/** run's and run-all's default --speed. */
const DEFAULT_SPEED = RUN_OPTIONS.speed.default;
/** A case's cluster time besides its own windows: deploy's share, confirm, method, settle, restore. */
const CASE_MS = 12 * MINUTE;
/** Deploying the system, once per namespace (Train-Ticket's Java services take minutes to start). */
const DEPLOY_MS = 20 * MINUTE;

/**
 * Whether the run shows each case its own lead (docs/clock.md): with one case at a time, the
 * runner re-bases the embedded cluster's shown time before each case, where no one reads. Cases
 * run side by side share one clock and one shown time, so such a run keeps the lead of them all.
 */
export function rebasesPerCase(cfg: RunConfig): boolean {
  return cfg.parallel <= 1;
}

/** A lead of cluster time `ms` at the run's speed: what its fast phases gain, with room. */
function leadOf(ms: number, speed: number): number {
  // at speed 1 nothing is gained: cluster time is the wall clock's
  if (speed <= 1) return 0;
  // a phase at speed F gains all but 1/F of its cluster time; and room for what the estimate misses
  const sized = Math.round(ms * (1 - 1 / speed) * 1.5);
  // Above the default speed each wall second a method waits on the cluster (a rollout status that
  // never ends, timed on the host) costs F cluster seconds, which no estimate of the run bounds:
  // there the speed's own lead (F - 1 half-hours, as `microremed sim` starts with) is kept, so a
  // sweep at --speed 600 does not fall to speed 1; the default speed, where models are run, gets
  // the run's own.
  return speed > DEFAULT_SPEED ? Math.max(sized, (speed - 1) * 30 * MINUTE) : sized;
}

/** One case's cluster time, at most: its share of the run, its checks' windows and its story. */
function caseMs(cfg: RunConfig, c: PlannedCase): number {
  // each attempt of a method that tries again waits on its own checks
  const attempts = Math.max(1, cfg.maxAttempts ?? 1);
  const windows = cfg.injectionTimeout + attempts * ((cfg.settle ?? 0) + (cfg.hold ?? 60));
  return CASE_MS + windows * 1000 + storyMs(c);
}

/** The lead the runner asks for before case `c` (of a run that rebasesPerCase). */
export function caseLead(cfg: RunConfig, c: PlannedCase): number {
  return leadOf(caseMs(cfg, c), cfg.speed ?? 1);
}

/** The lead the embedded cluster starts with for these runs. */
export function runLead(runs: { cfg: RunConfig; plan: PlannedCase[] }[]): number {
  const speed = runs[0]?.cfg.speed ?? 1;
  let ms = 0;
  // a case given its own lead before it starts (rebasesPerCase) needs none of this one: the
  // largest of them is kept for whatever comes before the first re-base
  let ownLeads = 0;
  for (const { cfg, plan } of runs) {
    const cases = shardCases(plan, cfg.shard);
    ms += DEPLOY_MS;
    if (rebasesPerCase(cfg)) ownLeads = Math.max(ownLeads, ...cases.map((c) => caseMs(cfg, c)));
    // workers share one clock: their cases' waits overlap or not, so they are counted as if in turn
    else for (const c of cases) ms += cfg.trials * caseMs(cfg, c);
  }
  ms += ownLeads;
  return leadOf(ms, speed);
}

/** An incident's own cluster time: its story's waits and its hold (an hour-old cause is an hour). */
function storyMs(c: PlannedCase): number {
  let seconds = 0;
  for (const f of c.faults) {
    const s = catalog().get(f.failure)?.incident;
    if (!s) continue;
    seconds += s.hold + (s.confirmSeconds ?? 0);
    for (const st of s.steps) if (st.do === "wait") seconds += st.seconds;
  }
  return seconds * 1000;
}
