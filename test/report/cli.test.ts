// `microremed report` through the built program (`npm test` builds it first), on the fixture
// runs: the three formats, --out, and the one-line errors a user meets.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { writeFixtureRuns } from "./fixtures.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
const report = (...args: string[]) => execa("node", [CLI, "report", ...args], { reject: false });

let root: string;
let logDirs: string[];
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  ({ root, logDirs } = writeFixtureRuns());
});

describe("microremed report", () => {
  it("prints Markdown tables by default", async () => {
    const r = await report(...logDirs, "--format", "md");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# MicroRemed report/);
    expect(r.stdout).toContain("8 runs, 34 cases; 4 model × method; tiers: easy, hard.");
    expect(r.stdout).toContain("| gpt-4o | ThinkRemed | easy | 100.0% (4/4) | 51.0% – 100.0% | 4 | 0 |");
    expect(r.stdout).toContain("| qwen2.5-7b | ThinkRemed | easy | 4 | 75.0% (3/4) | 75.0% (3/4) | 1 |");
    expect((await report(root)).stdout).toBe(r.stdout); // the same runs found two levels down from the parent
  });

  it("writes JSON and HTML to --out", async () => {
    const out = mkdtempSync(join(tmpdir(), "report-out-"));
    const j = await report(root, "--format", "json", "--out", join(out, "r.json"));
    expect(j.exitCode, j.stderr).toBe(0);
    expect(j.stdout).toBe("");
    expect(j.stderr).toContain(`report written to ${join(out, "r.json")}`);
    const data = JSON.parse(readFileSync(join(out, "r.json"), "utf8"));
    expect(data.byTier).toHaveLength(8);
    expect(data.runs).toHaveLength(8);
    const h = await report(...logDirs, "--format", "html", "--out", join(out, "sub", "r.html"));
    expect(h.exitCode, h.stderr).toBe(0);
    expect(readFileSync(join(out, "sub", "r.html"), "utf8")).toMatch(/^<!doctype html>/);
  });

  it("fails in one line with the fix for a folder without runs (E_CONFIG)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "report-empty-"));
    const r = await report(empty);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^error E_CONFIG: no run folders .* in .*report-empty-.* \(fix: pass a run folder or the log_dir of run-all/,
    );
    const missing = await report(join(empty, "nope"));
    expect(missing.stderr).toMatch(/^error E_CONFIG: .*nope is not a folder/);
  });

  it("refuses an unknown format (E_USAGE)", async () => {
    const r = await report(root, "--format", "pdf");
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe('error E_USAGE: unknown --format "pdf" (fix: use one of: md, json, html)');
  });
});
