// Issue 4, done-when 1, through the CLI on the embedded cluster: oracle repairs every case, noop
// none. The test suite samples each tier of Simple-Micro (every failure type appears in the first
// 14 cases of medium and hard) and runs Online-Boutique's easy tier whole; `npm run bench -- tiers`
// runs the full tiers.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "mr-runall-"));

async function runAll(env: string, model: string, extra: string[]) {
  const dir = join(root, `${env}-${model}`);
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
    {
      reject: false,
      timeout: 900_000,
    },
  );
  const summary = existsSync(join(dir, "summary.json"))
    ? JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"))
    : [];
  return {
    r,
    dir,
    summary: summary as {
      tier: string;
      successRate: number;
      evaluated: number;
      injectionFailures: number;
      cases: number;
    }[],
  };
}

describe("run-all on the embedded cluster", () => {
  it("oracle repairs every Simple-Micro case on every tier", async () => {
    const { r, summary, dir } = await runAll("simple-micro", "oracle", ["--experiments", "14"]);
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    expect(summary.map((s) => s.tier)).toEqual(["easy", "medium", "hard"]);
    for (const s of summary) {
      expect(s.injectionFailures, `${s.tier}`).toBe(0);
      expect(s.evaluated).toBe(14);
      expect(s.successRate, `${s.tier}: see ${dir}`).toBe(1);
    }
    expect(String(r.stdout)).toMatch(/\| SoloGen \| hard \| 100\.0% \(14\/14\)/);
    expect(readFileSync(join(dir, "summary.md"), "utf8")).toMatch(/SoloGen \| easy \| 100\.0%/);
  }, 900_000);

  it("noop repairs none", async () => {
    const { r, summary } = await runAll("simple-micro", "noop", ["--experiments", "14"]);
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    for (const s of summary) {
      expect(s.evaluated).toBe(14);
      expect(s.successRate, s.tier).toBe(0);
    }
  }, 900_000);

  it("Online-Boutique's easy tier: oracle 100%, noop 0%", async () => {
    const oracle = await runAll("online-boutique", "oracle", ["--tiers", "easy"]);
    expect(oracle.r.exitCode, String(oracle.r.stderr).slice(-2000)).toBe(0);
    expect(oracle.summary[0]).toMatchObject({ tier: "easy", cases: 23, evaluated: 23, successRate: 1 });
    const noop = await runAll("online-boutique", "noop", ["--tiers", "easy"]);
    expect(noop.summary[0]).toMatchObject({ tier: "easy", evaluated: 23, successRate: 0 });
  }, 900_000);
});
