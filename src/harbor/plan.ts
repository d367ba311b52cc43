// Which cases an export makes tasks of: every case of each tier's experiment file
// (experiments/<tier>.txt), targets drawn with the seed as a run draws them, so the same
// --env, --tiers and --seed name the same cases as `microremed run-all`.

import type { ReportLevel } from "../diagnosis/levels.js";
import { isEnvPath, loadEnv } from "../envs/env.js";
import { usageError } from "../errors.js";
import { failure } from "../faults/catalog.js";
import { resolveData } from "../runner/config.js";
import { loadExperimentFile, planCases } from "../runner/experiments.js";
import { EXPERT_HOLD_SECONDS } from "../runner/method-roles.js";
import type { HarborCase } from "./case.js";

export const HARBOR_TIERS = ["easy", "medium", "hard", "expert"] as const;

export interface ExportPlan {
  env: string;
  tiers: string[];
  report: ReportLevel;
  seed: number;
  speed: number;
  methodSpeed: number;
  settle: number;
  /** Cluster seconds of hold; default: 60 for the expert tier's cases, none for the reference's. */
  hold?: number;
  injectionTimeout: number;
  /** Only the first N cases of each tier. */
  limit?: number;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

export function planTasks(p: ExportPlan): HarborCase[] {
  if (isEnvPath(p.env))
    throw usageError(
      `--env ${p.env} is a folder: a task's image holds MicroRemed's built-in systems only`,
      "export one of simple-micro, online-boutique, train-ticket",
    );
  const env = loadEnv(p.env);
  const out: HarborCase[] = [];
  for (const tier of p.tiers) {
    if (!(HARBOR_TIERS as readonly string[]).includes(tier))
      throw usageError(`unknown tier "${tier}"`, `use some of: ${HARBOR_TIERS.join(", ")}`);
    const planned = planCases(loadExperimentFile(resolveData(`experiments/${tier}.txt`)), env, p.seed);
    for (const c of planned.slice(0, p.limit ?? planned.length)) {
      const expert = c.faults.some((f) => failure(f.failure).tier === "expert");
      const what = c.faults.map((f) => `${f.failure}-${f.target}`).join("-");
      out.push({
        name: slug(`${env.name}-${tier}-${String(c.index).padStart(3, "0")}-${what}`),
        env: env.name,
        namespace: env.defaultNamespace,
        tier,
        report: p.report,
        seed: p.seed,
        speed: p.speed,
        methodSpeed: p.methodSpeed,
        settle: p.settle,
        hold: p.hold ?? (expert ? EXPERT_HOLD_SECONDS : 0),
        injectionTimeout: p.injectionTimeout,
        faults: c.faults,
      });
    }
  }
  return out;
}
