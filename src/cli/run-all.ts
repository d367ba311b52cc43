// `microremed run-all <env> <log_dir> <model>`: the reference's run_all.sh. Deploys the env,
// runs every method on the easy, medium and hard tiers (one run folder per method and tier in
// log_dir), then prints and writes a summary across them.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { loadEnv } from "../envs/env.js";
import { usageError } from "../errors.js";
import { resolveModel } from "../llm/registry.js";
import { methodNames } from "../methods/registry.js";
import { formatSummary, type RunSummary, rateLine } from "../runlog/summary.js";
import { resolveData } from "../runner/config.js";
import { runWithSignals } from "./run.js";
import { addRunOptions, toRunConfig } from "./run-options.js";

/**
 * The reference's three tiers, run by default, and beside them the expert tier (docs/expert-tier.md)
 * and the incident tier (docs/incident-tier.md).
 */
export const TIERS = ["easy", "medium", "hard", "expert", "incident"] as const;
const DEFAULT_TIERS = ["easy", "medium", "hard"];
export const ALL_METHODS = ["SoloGen", "ThinkRemed"];

export function formatAcross(rows: { method: string; tier: string; s: RunSummary }[]): string {
  const head =
    "| method | tier | success | cases | inj. fail | attempts/success | mean time (s) | tokens/case | cost ($) |";
  const lines = rows.map(
    ({ method, tier, s }) =>
      `| ${method} | ${tier} | ${rateLine(s)} | ${s.cases} | ${s.injectionFailures} | ${s.attemptsPerSuccess ?? "-"} | ${s.meanRemediationSeconds ?? "-"} | ${s.tokensPerCase ?? "-"} | ${(s.tokens.costUsd ?? 0).toFixed(4)} |`,
  );
  return [head, "|---|---|---|---|---|---|---|---|---|", ...lines].join("\n");
}

export function registerRunAll(program: Command) {
  const cmd = program
    .command("run-all")
    .description(
      "Deploy <env> and run every method on the easy, medium and hard tiers with <model>, one log per method and tier in <log_dir>",
    )
    .argument("<env>", "simple-micro, online-boutique or train-ticket")
    .argument("<log_dir>", "folder for the runs and the summary")
    .argument("<model>", "backbone model (oracle, noop, runbook, scripted:<file>, or a provider model)")
    .option("--tiers <list>", `comma-separated tiers to run, of ${TIERS.join(", ")}`, DEFAULT_TIERS.join(","))
    .option("--methods <list>", "comma-separated methods to run (default: every available one)");
  addRunOptions(cmd, ["env", "model", "savePath", "experimentPath", "method", "runName"]).action(
    async (env: string, logDir: string, model: string, opts: Record<string, unknown>) => {
      loadEnv(env);
      resolveModel(model, { baseUrl: opts.baseUrl as string | undefined });
      const tiers = String(opts.tiers)
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
      for (const t of tiers)
        if (!TIERS.includes(t as (typeof TIERS)[number]))
          throw usageError(`unknown tier "${t}"`, `use some of: ${TIERS.join(", ")}`);
      const available = methodNames();
      const wanted = opts.methods
        ? String(opts.methods)
            .split(",")
            .map((m) => m.trim())
        : ALL_METHODS;
      const methods = wanted.filter((m) => available.includes(m));
      const missing = wanted.filter((m) => !available.includes(m));
      if (missing.length)
        process.stderr.write(
          `run-all: ${missing.join(", ")} not available in this version; running ${methods.join(", ") || "nothing"}\n`,
        );
      if (!methods.length)
        throw usageError(`no method to run`, `use --methods with some of: ${available.join(", ")}`);
      const plan = methods.flatMap((method) => tiers.map((tier) => ({ method, tier })));
      const cfgs = plan.map(({ method, tier }) =>
        toRunConfig({
          ...opts,
          env,
          model,
          savePath: logDir,
          remediateMethod: method,
          experimentPath: resolveData(`experiments/${tier}.txt`),
          // a level below full is a run of its own: the same log folder holds the levels side by side
          runName: `${method}_${tier}${opts.report && opts.report !== "full" ? `_${opts.report}` : ""}`,
        }),
      );
      const summaries = await runWithSignals(cfgs, (s) => process.stdout.write(formatSummary(s)));
      const rows = summaries.map((s, i) => ({ ...plan[i], s }));
      const table = formatAcross(rows);
      mkdirSync(logDir, { recursive: true });
      writeFileSync(join(logDir, "summary.md"), `# ${env} with ${model}\n\n${table}\n`);
      writeFileSync(
        join(logDir, "summary.json"),
        `${JSON.stringify(
          rows.map((r) => ({ ...r.s, method: r.method, tier: r.tier, report: cfgs[0].report })),
          null,
          2,
        )}\n`,
      );
      process.stdout.write(`\n${table}\n`);
    },
  );
}
