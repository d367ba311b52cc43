// `microremed run-all` through the built CLI on the embedded cluster, as a user runs it: SoloGen
// on whole tiers at --speed 600 with two cases at once; returns the run's summary rows.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

export interface TierRow {
  tier: string;
  successRate: number | null;
  evaluated: number;
  injectionFailures: number;
  cases: number;
}

const root = mkdtempSync(join(tmpdir(), "mr-tiers-"));

export async function runAll(env: string, model: string, extra: string[]) {
  const dir = join(root, `${env}-${model}-${extra.join("-").replace(/[^a-z0-9]+/gi, "")}`);
  const r = await execa(
    process.execPath,
    [
      "dist/src/cli/main.js",
      "run-all",
      env,
      dir,
      model,
      "--methods",
      "SoloGen",
      "--speed",
      "600",
      "--parallel",
      "2",
      ...extra,
    ],
    { reject: false, timeout: 1_800_000 },
  );
  const summary = existsSync(join(dir, "summary.json"))
    ? (JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as TierRow[])
    : [];
  return { r, dir, summary };
}
