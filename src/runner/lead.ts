// How far behind the wall clock an embedded cluster should start for a run: the cluster time its
// fast phases will gain (docs/clock.md). The cluster never runs ahead of the wall clock, so a lead
// too small makes the run's last cases wait at speed 1; one too large is what a model reads as
// the gap between the host's clock and the cluster's (kubectl describe's event ages). So it is
// sized to the run: each case's cluster time, at most, as measured on the tiers (a medium case on
// Simple-Micro with the oracle: about 11 minutes, its confirm window and the checks' waits), plus
// what the case's own windows add.

import { incidents } from "../faults/incident.js";
import type { PlannedCase } from "./experiments.js";
import type { PreparedRun } from "./run.js";
import { expandTrials, shardCases } from "./trials.js";

const MINUTE = 60_000;
/** A case's cluster time besides its own windows: deploy's share, confirm, method, settle, restore. */
const CASE_MS = 12 * MINUTE;
/** Deploying the system, once per namespace. */
const DEPLOY_MS = 10 * MINUTE;

/** An incident's own cluster time (ms): its story's waits (history made by time passing) and its hold. */
function storyMs(c: PlannedCase): number {
  let s = 0;
  for (const f of c.faults) {
    const scenario = incidents().get(f.failure);
    if (!scenario) continue;
    s += scenario.hold + scenario.steps.reduce((w, st) => w + (st.do === "wait" ? st.seconds : 0), 0);
  }
  return s * 1000;
}

export function runLead(runs: PreparedRun[]): number {
  const speed = runs[0]?.cfg.speed ?? 1;
  // at speed 1 nothing is gained: cluster time is the wall clock's
  if (speed <= 1) return 0;
  let ms = 0;
  for (const { cfg, plan } of runs) {
    const trials = expandTrials(shardCases(plan, cfg.shard), cfg.trials);
    const cases = trials.length;
    // each attempt of a method that tries again waits on its own checks
    const attempts = Math.max(1, cfg.maxAttempts ?? 1);
    const windows = cfg.injectionTimeout + attempts * ((cfg.settle ?? 0) + (cfg.hold ?? 60));
    // workers share one clock: their cases' waits overlap or not, so they are counted as if in turn
    ms += DEPLOY_MS + cases * (CASE_MS + windows * 1000);
    for (const t of trials) ms += storyMs(t.case);
  }
  // a phase at speed F gains all but 1/F of its cluster time; and room for what the estimate misses
  return Math.round(ms * (1 - 1 / speed) * 1.5);
}
