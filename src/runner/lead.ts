// How far behind the wall clock an embedded cluster should be: the cluster time its fast phases
// will gain (docs/clock.md). The cluster never shows a time ahead of the wall clock, so a lead too
// small makes the last of it wait at speed 1; one too large is what a model reads as the gap
// between the host's clock and the cluster's (kubectl describe's event ages). So it is sized to
// what is ahead: before each case the runner asks for what it needs up to its method (caseLead),
// and before its method for the rest (methodLead); the cluster starts with enough for the deploys
// and the first case. A case's cluster time, at most, as measured on the tiers (a medium case on
// Simple-Micro with the oracle: about 11 minutes, its confirm window and the checks' waits), plus
// what the case's own windows add; a story's waits are known to the second.

import { catalog } from "../faults/catalog.js";
import type { RunConfig } from "./config.js";
import type { PlannedCase } from "./experiments.js";
import { RUN_OPTIONS } from "./options.js";
import { shardCases } from "./trials.js";

const MINUTE = 60_000;
/** run's and run-all's default --speed. */
const DEFAULT_SPEED = RUN_OPTIONS.speed.default;
/** A case's cluster time up to its method, besides its windows: the reset, the injection, the confirm. */
const BEFORE_MS = 6 * MINUTE;
/** ...and from its method on: the method's own waits on the cluster, the checks, the restore. */
const AFTER_MS = 6 * MINUTE;
/** Deploying the system, once per namespace (Train-Ticket's Java services take minutes to start). */
const DEPLOY_MS = 20 * MINUTE;

/**
 * Whether the run shows each case its own lead (docs/clock.md): with one case at a time, the
 * runner re-bases the embedded cluster's shown time before each case and again before its method,
 * where no one reads. Cases run side by side share one clock and one shown time, so such a run
 * keeps the lead of them all.
 */
export function rebasesPerCase(cfg: RunConfig): boolean {
  return cfg.parallel <= 1;
}

/**
 * A lead for cluster time `ms` (an estimate) and `exactMs` (a story's waits, known to the second)
 * at the run's speed: what those fast phases gain, with room for what the estimate misses.
 */
function leadOf(ms: number, speed: number, exactMs = 0): number {
  // at speed 1 nothing is gained: cluster time is the wall clock's
  if (speed <= 1) return 0;
  // a phase at speed F gains all but 1/F of its cluster time
  const sized = Math.round((ms * 1.5 + exactMs) * (1 - 1 / speed));
  // Above the default speed each wall second a method waits on the cluster (a rollout status that
  // never ends, timed on the host) costs F cluster seconds, which no estimate of the run bounds:
  // there the speed's own lead (F - 1 half-hours, as `microremed sim` starts with) is kept, so a
  // sweep at --speed 600 does not fall to speed 1; the default speed, where models are run, gets
  // the run's own.
  return speed > DEFAULT_SPEED ? Math.max(sized, (speed - 1) * 30 * MINUTE) : sized;
}

/** Case `c`'s cluster time up to its method, estimated (its story's waits apart: storyWaitMs). */
function beforeMs(cfg: RunConfig, c: PlannedCase): number {
  return BEFORE_MS + (cfg.injectionTimeout + confirmSeconds(c)) * 1000;
}

/** The attempts a case may take: T_max in force (cfg.maxAttempts, set by --max-attempts or the method's own). */
const attemptsOf = (cfg: RunConfig) => Math.max(1, cfg.maxAttempts ?? 1);

/** Case `c`'s cluster time from its method on: each attempt of a method that tries again waits on its own checks. */
function afterMs(cfg: RunConfig, c: PlannedCase): number {
  return AFTER_MS + attemptsOf(cfg) * ((cfg.settle ?? 0) + (cfg.hold ?? storyHold(c) ?? 60)) * 1000;
}

/**
 * The lead the runner asks for before case `c` (of a run that rebasesPerCase): up to its method.
 * `readySeconds` is the system's readyTimeoutSeconds: the reset may wait that long for a namespace
 * the previous case left unready (a bound, so given no room).
 */
export function caseLead(cfg: RunConfig, c: PlannedCase, readySeconds = 0): number {
  return leadOf(beforeMs(cfg, c), cfg.speed ?? 1, storyWaitMs(c) + readySeconds * 1000);
}

/**
 * The lead the runner asks for before case `c`'s method (of a run that rebasesPerCase): the rest
 * of it. Each attempt's checks may wait up to the system's readyTimeoutSeconds for what a failed
 * fix left unready (a bound, so given no room).
 */
export function methodLead(cfg: RunConfig, c: PlannedCase, readySeconds = 0): number {
  return leadOf(afterMs(cfg, c), cfg.speed ?? 1, attemptsOf(cfg) * readySeconds * 1000);
}

/**
 * The lead the embedded cluster starts with for these runs: their deploys', and the cases' of a
 * run whose cases share the clock. A case given its own leads (rebasesPerCase) needs none of it:
 * its first re-base moves shown time back as far as it needs. A run's method gives its T_max where
 * --max-attempts does not.
 */
export function runLead(
  runs: { cfg: RunConfig; plan: PlannedCase[]; method?: { maxAttempts: number } }[],
): number {
  const speed = runs[0]?.cfg.speed ?? 1;
  let ms = 0;
  let exact = 0;
  for (const { cfg: given, plan, method } of runs) {
    const cfg = { ...given, maxAttempts: given.maxAttempts ?? method?.maxAttempts };
    ms += DEPLOY_MS;
    if (rebasesPerCase(cfg)) continue;
    // workers share one clock: their cases' waits overlap or not, so they are counted as if in turn
    for (const c of shardCases(plan, cfg.shard)) {
      ms += cfg.trials * (beforeMs(cfg, c) + afterMs(cfg, c));
      exact += cfg.trials * storyWaitMs(c);
    }
  }
  return leadOf(ms, speed, exact);
}

const scenarios = (c: PlannedCase) => c.faults.flatMap((f) => catalog().get(f.failure)?.incident ?? []);

/** An incident's story's waits, as written (an hour-old cause is an hour). */
function storyWaitMs(c: PlannedCase): number {
  let seconds = 0;
  for (const s of scenarios(c)) for (const st of s.steps) if (st.do === "wait") seconds += st.seconds;
  return seconds * 1000;
}

/** An incident's own confirm window (s), beside --injection-timeout. */
function confirmSeconds(c: PlannedCase): number {
  return scenarios(c).reduce((n, s) => n + (s.confirmSeconds ?? 0), 0);
}

/** An incident's hold (s), the longest of its scenarios', where --hold does not set one. */
function storyHold(c: PlannedCase): number | undefined {
  const holds = scenarios(c).map((s) => s.hold);
  return holds.length ? Math.max(...holds) : undefined;
}
