// Finding and reading run folders. A run folder is what `microremed run` leaves: run.json (its
// configuration) and cases.jsonl (one record per finished case). A user may point `report` at a
// run folder, at a run-all log_dir (run folders one level down), or at a folder of log_dirs (two
// levels down), so we look that deep and no deeper: case-NNN/ folders inside runs are never runs.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { MicroRemedError } from "../errors.js";
import { RunRecords } from "../runlog/folder.js";
import { latestRecords } from "../runlog/summary.js";
import type { LoadedRun } from "./runs.js";
import { mergeShards } from "./shards.js";
import { maxAttemptsOf, withReason } from "./trace.js";

const MAX_DEPTH = 2;

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isRunFolder = (d: string) => existsSync(join(d, "cases.jsonl")) || existsSync(join(d, "run.json"));

/** Run folders at `dir` or up to two levels below it, sorted so reports are stable. */
export function findRunFolders(dir: string, depth = 0): string[] {
  if (isRunFolder(dir)) return [dir];
  if (depth >= MAX_DEPTH) return [];
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith("."))
    .map((e) => join(dir, e.name))
    .sort();
  return children.flatMap((c) => findRunFolders(c, depth + 1));
}

function readJson(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // a run.json cut off by a crash: fall back to what the records and folder name say
    return undefined;
  }
}

/** Tier from the experiment file's name (experiments/hard.txt → hard); run-all's <Method>_<tier> otherwise. */
function tierOf(config: Record<string, unknown> | undefined, dir: string): string {
  const path = config?.experimentPath;
  if (typeof path === "string" && path) return basename(path, extname(path));
  const m = /_([^_]+)$/.exec(basename(dir));
  return m ? m[1] : "unknown";
}

export function loadRun(dir: string): LoadedRun {
  const run = readJson(join(dir, "run.json"));
  const config = run?.config as Record<string, unknown> | undefined;
  const options = run?.options as Record<string, unknown> | undefined;
  const summary = readJson(join(dir, "summary.json"));
  // RunRecords.read skips torn lines; it creates no files for a folder that already exists
  const recorded = new RunRecords(dir).read();
  // run.json first (what the user asked for), then summary.json, then the records themselves
  const pick = (k: "env" | "model" | "method") => {
    const v = config?.[k] ?? summary?.[k] ?? (k === "env" ? undefined : recorded[0]?.[k]);
    return typeof v === "string" && v ? v : "unknown";
  };
  // a case recorded before reasons existed gets its reason from its folder
  const tMax = maxAttemptsOf(dir, pick("method"));
  const cases = latestRecords(recorded).map((c) => withReason(dir, c, tMax));
  const num = (x: unknown) => (typeof x === "number" ? x : undefined);
  return {
    dir,
    env: pick("env"),
    tier: tierOf(config, dir),
    model: pick("model"),
    method: pick("method"),
    plan: {
      experimentPath: typeof config?.experimentPath === "string" ? config.experimentPath : undefined,
      seed: num(config?.seed),
      experiments: config?.experiments === null ? null : num(config?.experiments),
    },
    cases,
    trials: num(run?.trials) ?? num(config?.trials) ?? Math.max(1, ...cases.map((c) => c.trial ?? 1)),
    config,
    plannedCases: num(run?.plannedCases),
    shard: typeof config?.shard === "string" ? config.shard : null,
    confinement: {
      // runs recorded before least privilege existed ran as the admin, unsandboxed
      agentAccess: typeof config?.agentAccess === "string" ? config.agentAccess : "cluster-admin",
      sandbox: typeof options?.sandbox === "string" ? options.sandbox : "none",
    },
  };
}

/**
 * Every run under the given paths, each folder once even when paths overlap; the shards of one
 * run (--shard i/n) merged into that run, after checking they make it up exactly (shards.ts).
 */
export function loadRuns(paths: string[]): LoadedRun[] {
  const seen = new Set<string>();
  const runs: LoadedRun[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    if (!isDir(abs))
      throw new MicroRemedError(
        "E_CONFIG",
        `${p} is not a folder`,
        "pass a run folder or the log_dir of run-all (the --save-path of run)",
      );
    const found = findRunFolders(abs);
    if (!found.length)
      throw new MicroRemedError(
        "E_CONFIG",
        `no run folders (with run.json or cases.jsonl) in ${p} or two levels below it`,
        "pass a run folder or the log_dir of run-all (the --save-path of run)",
      );
    for (const d of found) {
      const real = realpathSync(d);
      if (seen.has(real)) continue;
      seen.add(real);
      runs.push(loadRun(d));
    }
  }
  return mergeShards(runs);
}
