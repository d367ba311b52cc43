// Every case of Simple-Micro's three tiers through the CLI on the embedded cluster: the oracle
// repairs all of them, noop none (noop's 0%: a fault that ends by itself is not a remediation).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAll } from "./run-all.js";

const SIZES: Record<string, number> = { easy: 23, medium: 49, hard: 80 };

describe("Simple-Micro, every tier", () => {
  it("oracle repairs every case", async () => {
    const { r, summary, dir } = await runAll("simple-micro", "oracle", []);
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    expect(summary.map((s) => s.tier)).toEqual(["easy", "medium", "hard"]);
    for (const s of summary) {
      expect(s.injectionFailures, s.tier).toBe(0);
      expect(s.evaluated, s.tier).toBe(SIZES[s.tier]);
      expect(s.successRate, `${s.tier}: see ${dir}`).toBe(1);
    }
    expect(String(r.stdout)).toMatch(/\| SoloGen \| hard \| 100\.0% \(80\/80\)/);
    expect(readFileSync(join(dir, "summary.md"), "utf8")).toMatch(/SoloGen \| easy \| 100\.0%/);
  });

  it("noop repairs none", async () => {
    const { r, summary } = await runAll("simple-micro", "noop", []);
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    for (const s of summary) {
      expect(s.evaluated, s.tier).toBe(SIZES[s.tier]);
      expect(s.successRate, s.tier).toBe(0);
    }
  });
});
