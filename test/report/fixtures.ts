// Run folders as `microremed run-all` leaves them, written into a temp dir: two models × two
// methods × two tiers, one log_dir per model. Each run is a string of case outcomes, so the
// expected numbers can be read off this file:
//   S success   F failure (reference failed)   R reference passed but health failed (a failure)
//   I injection failure   E harness error   X interrupted
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CaseStatus } from "../../src/outcome.js";
import type { CaseRecord } from "../../src/runlog/records.js";

export const MODEL_A = "gpt-4o"; // priced: costUsd on each record
export const MODEL_B = "qwen2.5-7b"; // no prices: cost "-"
export const FAILURES = ["pod-failure", "cpu-stress", "network-delay", "pod-config-error"];

export const RUNS: { model: string; env: string; method: string; tier: string; outcomes: string }[] = [
  { model: MODEL_A, env: "simple-micro", method: "SoloGen", tier: "easy", outcomes: "SSSFI" },
  { model: MODEL_A, env: "simple-micro", method: "SoloGen", tier: "hard", outcomes: "SFRF" },
  { model: MODEL_A, env: "simple-micro", method: "ThinkRemed", tier: "easy", outcomes: "SSSS" },
  { model: MODEL_A, env: "simple-micro", method: "ThinkRemed", tier: "hard", outcomes: "SSFIE" },
  { model: MODEL_B, env: "online-boutique", method: "SoloGen", tier: "easy", outcomes: "SFFF" },
  { model: MODEL_B, env: "online-boutique", method: "SoloGen", tier: "hard", outcomes: "FFFI" },
  { model: MODEL_B, env: "online-boutique", method: "ThinkRemed", tier: "easy", outcomes: "SSRF" },
  { model: MODEL_B, env: "online-boutique", method: "ThinkRemed", tier: "hard", outcomes: "SFFX" },
];

const STATUS: Record<string, CaseStatus> = {
  S: "success",
  F: "failure",
  R: "failure",
  I: "injection-failure",
  E: "error",
  X: "interrupted",
};
const verdict = (pass: boolean) => ({ pass, reason: pass ? "ok" : "not ok", measurements: {} });

export function caseRecord(run: (typeof RUNS)[number], o: string, i: number): CaseRecord {
  const status = STATUS[o];
  const ran = o !== "I"; // an injection failure never reaches the method: no tokens, no verdicts
  const priced = run.model === MODEL_A;
  const tokens = ran
    ? {
        inputTokens: priced ? 1000 : 800,
        outputTokens: priced ? 200 : 100,
        ...(priced ? { costUsd: 0.01 } : {}),
      }
    : { inputTokens: 0, outputTokens: 0 };
  const evaluated = o === "S" || o === "F" || o === "R";
  return {
    index: i + 1,
    failure: FAILURES[i % FAILURES.length],
    target: "time-service",
    faults: [{ failure: FAILURES[i % FAILURES.length], target: "time-service" }],
    status,
    success: o === "S",
    injected: ran,
    verdicts: {
      injection: { faultShown: ran, reason: ran ? "ok" : "not ok", measurements: {} },
      ...(evaluated ? { reference: verdict(o !== "F"), health: verdict(o !== "R") } : {}),
    },
    attempts: o === "S" && run.method === "ThinkRemed" && i % 2 === 1 ? 2 : evaluated ? 1 : 0,
    probeRounds: 0,
    phases: { inject: 100 },
    ...(evaluated ? { remediationSeconds: 30 + 10 * i } : {}),
    tokens,
    usageByRole: {},
    errors: o === "E" ? ["harness: boom"] : [],
    method: run.method,
    model: run.model,
    startedAt: "2025-01-01T00:00:00.000Z",
    finishedAt: "2025-01-01T00:01:00.000Z",
  };
}

/** tmp/<model>/<Method>_<tier>/{run.json,cases.jsonl}; returns tmp and the two log_dirs. */
export function writeFixtureRuns(): { root: string; logDirs: string[] } {
  const root = mkdtempSync(join(tmpdir(), "microremed-report-"));
  for (const run of RUNS) {
    const dir = join(root, run.model, `${run.method}_${run.tier}`);
    mkdirSync(join(dir, "case-001"), { recursive: true });
    const config = {
      env: run.env,
      namespace: run.env,
      experimentPath: `/opt/microremed/experiments/${run.tier}.txt`,
      experiments: null,
      method: run.method,
      model: run.model,
      seed: 42,
      maxAttempts: null,
      settle: 10,
      injectionTimeout: 60,
      enableStrictRestart: false,
      manifestPath: null,
    };
    writeFileSync(
      join(dir, "run.json"),
      JSON.stringify({ config, cluster: "sim", speed: 60, startedAt: "2025-01-01T00:00:00.000Z" }),
    );
    const lines = [...run.outcomes].map((o, i) => JSON.stringify(caseRecord(run, o, i)));
    // the last run of each model was cut off mid-write: a torn line the report must skip
    const torn = run.tier === "hard" && run.method === "ThinkRemed" ? '{"index": 99, "status": "succ' : "";
    writeFileSync(join(dir, "cases.jsonl"), `${lines.join("\n")}\n${torn}`);
  }
  for (const model of [MODEL_A, MODEL_B])
    writeFileSync(join(root, model, "summary.md"), "# run-all's own summary\n");
  return { root, logDirs: [join(root, MODEL_A), join(root, MODEL_B)] };
}

/**
 * One model's runs at three report levels, as `run-all --report L` leaves them under
 * one log_dir: a run from before levels (read as full; nothing scored), two at symptom, one at
 * service. Per case: `localized` L (the agent changed the fault's objects) or -, `stated` C (a
 * diagnosis naming the fault's service), W (naming another) or -.
 */
export const LEVEL_RUNS = [
  { name: "SoloGen_easy", method: "SoloGen", tier: "easy", outcomes: "SSSS" },
  {
    name: "SoloGen_easy_symptom",
    method: "SoloGen",
    tier: "easy",
    level: "symptom",
    outcomes: "FFFF",
    localized: "LL--",
    stated: "CWC-",
  },
  {
    name: "SoloGen_hard_symptom",
    method: "SoloGen",
    tier: "hard",
    level: "symptom",
    outcomes: "SSFI",
    localized: "L---",
    stated: "----",
  },
  {
    name: "ThinkRemed_easy_service",
    method: "ThinkRemed",
    tier: "easy",
    level: "service",
    outcomes: "SS",
    localized: "LL",
    stated: "CC",
  },
];

/** tmp/gpt-4o/<name>/{run.json,cases.jsonl} for each of LEVEL_RUNS; returns the log_dir. */
export function writeLevelRuns(): string {
  const logDir = join(mkdtempSync(join(tmpdir(), "microremed-levels-")), MODEL_A);
  for (const run of LEVEL_RUNS) {
    const dir = join(logDir, run.name);
    mkdirSync(dir, { recursive: true });
    const config = {
      env: "simple-micro",
      experimentPath: `/opt/microremed/experiments/${run.tier}.txt`,
      method: run.method,
      model: MODEL_A,
      seed: 42,
      ...(run.level ? { report: run.level } : {}),
    };
    writeFileSync(join(dir, "run.json"), JSON.stringify({ config, startedAt: "2025-01-01T00:00:00.000Z" }));
    const base = { model: MODEL_A, env: "simple-micro", method: run.method, tier: run.tier, outcomes: "" };
    const lines = [...run.outcomes].map((o, i) => {
      const rec = caseRecord(base, o, i);
      if (!run.level) return JSON.stringify(rec);
      const said = run.stated?.[i];
      return JSON.stringify({
        ...rec,
        report: run.level,
        tier: "reference",
        localization: {
          changed: [],
          faultObjects: ["deployments/time-service"],
          localized: run.localized?.[i] === "L",
          collateral: [],
        },
        ...(said === "C" || said === "W"
          ? {
              diagnosis: {
                service: said === "C" ? "time-service" : "hello-service",
                cause: "",
                correct: said === "C",
              },
            }
          : {}),
      });
    });
    writeFileSync(join(dir, "cases.jsonl"), `${lines.join("\n")}\n`);
  }
  return logDir;
}
