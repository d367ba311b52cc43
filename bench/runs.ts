// Benchmarks that run the benchmark: the CLI as a user runs it, timed from outside, with the
// per-phase times each case records.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { line, percentile } from "./stats.js";

const CLI = join(import.meta.dirname, "..", "src", "cli", "main.js");

interface Case {
  failure: string;
  status: string;
  phases: Record<string, number>;
}

async function cli(args: string[]): Promise<{ wallS: number; code: number; err: string }> {
  const t = performance.now();
  const r = await execa(process.execPath, [CLI, ...args], { reject: false });
  return {
    wallS: (performance.now() - t) / 1000,
    code: r.exitCode ?? -1,
    err: String(r.stderr).split("\n").slice(-3).join(" | "),
  };
}

function cases(dir: string): Case[] {
  return readFileSync(join(dir, "cases.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** `run` with the oracle and SoloGen on Simple-Micro, an experiment file and the given extra flags. */
const oracleRun = (experiments: string, ...extra: string[]) => [
  "run",
  "--env",
  "simple-micro",
  "--model",
  "oracle",
  "--remediate-method",
  "SoloGen",
  "--experiment-path",
  experiments,
  ...extra,
];
const oracleHard = (...extra: string[]) => oracleRun("experiments/hard.txt", ...extra);

const rate = (cs: Case[]) =>
  `${cs.filter((c) => c.status === "success").length}/${cs.filter((c) => c.status === "success" || c.status === "failure").length}`;

/** Wall time per phase per case, oracle on Simple-Micro at --speed 1. */
export async function benchPhases(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "mr-bench-"));
  process.stdout.write(
    "One case at a time, oracle, simple-micro, embedded cluster at --speed 1 (settle 10 s)\n",
  );
  const r = await cli(
    oracleHard("--experiments", "7", "--speed", "1", "--save-path", dir, "--run-name", "phases"),
  );
  if (r.code !== 0) process.stdout.write(`  run failed (exit ${r.code}): ${r.err}\n`);
  const cs = cases(join(dir, "phases"));
  for (const c of cs) {
    const p = c.phases;
    const total = Object.entries(p)
      .filter(([k]) => k !== "execute")
      .reduce((n, [, v]) => n + v, 0);
    const parts = ["inject", "confirm", "method", "execute", "settle", "verify", "restore"]
      .map((k) => `${k} ${((p[k] ?? 0) / 1000).toFixed(2)}`)
      .join("  ");
    line(
      `${c.failure} (${c.status})`,
      `${parts}  | all but settle ${((total - (p.settle ?? 0)) / 1000).toFixed(2)} s`,
      "< 5 s",
    );
  }
  line("success", rate(cs));
}

/**
 * Deploy plus one case of each of the reference's seven failure types (hard.txt's first seven),
 * oracle and SoloGen on Simple-Micro, every setting at its default (speed 60, its clock starting
 * behind the wall clock by its lead): the time a user waits, timed from outside.
 */
export async function benchSeven(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "mr-bench-"));
  process.stdout.write("Deploy + the seven reference types, oracle, simple-micro, default settings\n");
  const r = await cli(oracleHard("--experiments", "7", "--save-path", dir, "--run-name", "seven"));
  if (r.code !== 0) process.stdout.write(`  run failed (exit ${r.code}): ${r.err}\n`);
  const cs = cases(join(dir, "seven"));
  const sum = (k: string) => cs.reduce((n, c) => n + (c.phases[k] ?? 0), 0) / 1000;
  line("wall time, deploy included", `${r.wallS.toFixed(1)} s`, "< 20 s");
  line(
    "of which in cases (wall s)",
    ["inject", "confirm", "method", "settle", "verify", "restore"]
      .map((k) => `${k} ${sum(k).toFixed(1)}`)
      .join("  "),
  );
  line("success", `${rate(cs)} (${[...new Set(cs.map((c) => c.failure))].length} types)`);
}

/** The three tiers of Simple-Micro and Online-Boutique's easy tier, oracle and noop. */
export async function benchTiers(): Promise<void> {
  await runAllBench(
    [
      ["simple-micro", "oracle", "easy,medium,hard"],
      ["simple-micro", "noop", "easy,medium,hard"],
      ["online-boutique", "oracle", "easy"],
      ["online-boutique", "noop", "easy"],
      ["train-ticket", "oracle", "hard"],
    ],
    "600",
  );
}

/**
 * The expert tier with the oracle on each system at the default speed and --parallel 2,
 * as a user runs it (target: under 15 minutes per system on 2 cores).
 */
export async function benchExpert(): Promise<void> {
  await runAllBench(
    [
      ["simple-micro", "oracle", "expert"],
      ["online-boutique", "oracle", "expert"],
      ["train-ticket", "oracle", "expert"],
    ],
    undefined,
    "< 900 s",
  );
}

/** The incident tier with the oracle on every system, at the default speed. */
export async function benchIncident(): Promise<void> {
  await runAllBench(
    [
      ["simple-micro", "oracle", "incident"],
      ["online-boutique", "oracle", "incident"],
      ["train-ticket", "oracle", "incident"],
    ],
    undefined,
    "< 900 s",
  );
}

/** run-all per plan row at `speed` (undefined: the CLI's default), each row's wall time against `target`. */
async function runAllBench(plan: [string, string, string][], speed: string | undefined, target?: string) {
  const root = mkdtempSync(join(tmpdir(), "mr-bench-"));
  process.stdout.write(
    `run-all with SoloGen, embedded cluster at ${speed ? `--speed ${speed}` : "the default speed"}, --parallel 2\n`,
  );
  for (const [env, model, tiers] of plan) {
    const dir = join(root, `${env}-${model}`);
    const r = await cli([
      ...["run-all", env, dir, model, "--methods", "SoloGen", "--tiers", tiers],
      ...(speed ? ["--speed", speed] : []),
      ...["--parallel", "2"],
    ]);
    const runs = readdirSync(dir).filter((d) => d.startsWith("SoloGen_"));
    const parts = runs
      .map((run) => `${run.replace("SoloGen_", "")} ${rate(cases(join(dir, run)))}`)
      .join(", ");
    line(
      `${env} ${model}`,
      `${parts}   ${r.wallS.toFixed(0)} s${r.code ? `  (exit ${r.code}: ${r.err})` : ""}`,
      target,
    );
  }
}

/** The hard tier with the oracle, one case at a time and four at once. */
export async function benchParallel(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "mr-bench-"));
  process.stdout.write("Hard tier (80 cases), oracle, simple-micro, --speed 600\n");
  const walls: number[] = [];
  for (const n of [1, 4]) {
    const r = await cli(
      oracleHard("--speed", "600", "--parallel", String(n), "--save-path", root, "--run-name", `n${n}`),
    );
    walls.push(r.wallS);
    const cs = cases(join(root, `n${n}`));
    const caseWall = cs.map((c) => Object.values(c.phases).reduce((a, b) => a + b, 0) / 1000);
    line(
      `--parallel ${n}`,
      `${r.wallS.toFixed(1)} s wall, success ${rate(cs)}, case p50 ${percentile(caseWall, 50).toFixed(2)} s${r.code ? ` (exit ${r.code}: ${r.err})` : ""}`,
    );
  }
  line("speed-up N=4 over N=1", `${(walls[0] / walls[1]).toFixed(2)}x (2 cores)`);
}

/** Remediation time must not depend on the clock's speed (oracle, easy tier, 10 vs 60). */
export async function benchRemediationTime(): Promise<void> {
  process.stdout.write(
    "Average Remediation Time per Success (model + playbook, as a real cluster shows it), oracle, simple-micro easy tier\n",
  );
  const means: number[] = [];
  for (const speed of [10, 60]) {
    const dir = mkdtempSync(join(tmpdir(), "mr-bench-"));
    const r = await cli([
      "run",
      "--env",
      "simple-micro",
      "--model",
      "oracle",
      "--experiment-path",
      "experiments/easy.txt",
      "--speed",
      String(speed),
      "--save-path",
      dir,
      "--run-name",
      "time",
    ]);
    if (r.code !== 0) process.stdout.write(`  run at speed ${speed} failed (exit ${r.code}): ${r.err}\n`);
    const cs = cases(join(dir, "time")) as (Case & {
      remediationSeconds?: number;
      remediation?: Record<string, number>;
    })[];
    const ok = cs.filter((c) => c.status === "success" && typeof c.remediationSeconds === "number");
    const mean = ok.reduce((n, c) => n + (c.remediationSeconds ?? 0), 0) / Math.max(1, ok.length);
    const part = (k: string) =>
      ok.reduce((n, c) => n + (c.remediation?.[k] ?? 0), 0) / Math.max(1, ok.length) / 1000;
    means.push(mean);
    line(
      `speed ${speed}`,
      `${mean.toFixed(1)} s mean over ${ok.length} successes (execute ${part("executeMs").toFixed(1)} s, ansible CPU ${part("executeCpuMs").toFixed(1)} s; the harness's settle+verify apart: ${part("finalMs").toFixed(1)} s; wall ${r.wallS.toFixed(0)} s)`,
    );
  }
  const [a, b] = means;
  line("difference", `${((Math.abs(a - b) / Math.max(a, b)) * 100).toFixed(1)}%`, "< 15%");
}

/** What confinement costs per case: the agent's identity, and bubblewrap + the API proxy. */
export async function benchConfinement(): Promise<void> {
  process.stdout.write(
    "Per-case cost of confinement, oracle, simple-micro, 6 pod-fail cases at --speed 60\n",
  );
  const per: Record<string, { method: number; identity: number; n: number }> = {};
  for (const sandbox of ["none", "bwrap"]) {
    const dir = mkdtempSync(join(tmpdir(), "mr-bench-"));
    const extra = ["--experiments", "6", "--speed", "60", "--sandbox", sandbox];
    const r = await cli(
      oracleRun("experiments/pod-fail.txt", ...extra, "--save-path", dir, "--run-name", "c"),
    );
    if (r.code !== 0)
      process.stdout.write(`  run with --sandbox ${sandbox} failed (exit ${r.code}): ${r.err}\n`);
    const cs = cases(join(dir, "c")).filter((c) => c.status === "success");
    // the method phase holds the playbook run (sandbox set-up and teardown, the proxy in between)
    per[sandbox] = {
      method: cs.reduce((n, c) => n + (c.phases.method ?? 0), 0) / Math.max(1, cs.length),
      identity: cs.reduce((n, c) => n + (c.phases.identity ?? 0), 0) / Math.max(1, cs.length),
      n: cs.length,
    };
    line(
      `--sandbox ${sandbox}`,
      `method phase ${(per[sandbox].method / 1000).toFixed(2)} s, identity ${(per[sandbox].identity / 1000).toFixed(3)} s per case (${cs.length} cases)`,
    );
  }
  const cost = (per.bwrap.method - per.none.method + per.bwrap.identity) / 1000;
  line("identity + sandbox", `${cost.toFixed(2)} s per case`, "< 0.3 s");
}
