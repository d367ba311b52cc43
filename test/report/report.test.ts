// Loading, merging and rendering runs in-process, on the fixture runs of fixtures.ts (the
// expected numbers below are read off its outcome strings).
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { isMicroRemedError } from "../../src/errors.js";
import { buildReport, loadRuns, parseFormat, type Report, render } from "../../src/report/index.js";
import { caseRecord, MODEL_A, MODEL_B, RUNS, writeFixtureRuns } from "./fixtures.js";

let root: string;
let logDirs: string[];
let report: Report;
const cell = (model: string, method: string, tier: string) =>
  report.byTier.find((c) => c.model === model && c.method === method && c.tier === tier)!;

beforeAll(() => {
  ({ root, logDirs } = writeFixtureRuns());
  report = buildReport(loadRuns(logDirs));
});

describe("finding runs", () => {
  it("reads every run of two log_dirs, skipping the torn last line", () => {
    const runs = loadRuns(logDirs);
    expect(runs).toHaveLength(8);
    expect(
      runs.find((r) => r.model === MODEL_A && r.method === "ThinkRemed" && r.tier === "hard")!.cases,
    ).toHaveLength(5);
    expect(runs.map((r) => r.env)).toContain("online-boutique");
  });

  it("looks two levels down, and counts a run folder named twice once", () => {
    expect(loadRuns([root])).toHaveLength(8);
    expect(loadRuns([root, logDirs[0], join(logDirs[0], "SoloGen_easy")])).toHaveLength(8);
    expect(loadRuns([join(logDirs[1], "SoloGen_hard")])).toHaveLength(1);
  });

  it("takes the tier from run-all's folder name and the model from the records when run.json is missing", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "report-norun-")), "SoloGen_medium");
    mkdirSync(dir);
    writeFileSync(join(dir, "cases.jsonl"), `${JSON.stringify(caseRecord(RUNS[0], "S", 0))}\n`);
    expect(loadRuns([dir])[0]).toMatchObject({
      tier: "medium",
      model: MODEL_A,
      method: "SoloGen",
      env: "unknown",
    });
  });

  it("fails with E_CONFIG and the fix for a folder without runs", () => {
    const empty = mkdtempSync(join(tmpdir(), "report-empty-"));
    try {
      loadRuns([empty]);
      expect.unreachable();
    } catch (e) {
      expect(isMicroRemedError(e) && e.code).toBe("E_CONFIG");
      expect((e as Error).message).toContain(empty);
    }
  });
});

describe("merging", () => {
  it("rates evaluated cases only, with injection failures, interruptions and errors apart", () => {
    expect(cell(MODEL_A, "SoloGen", "easy")).toMatchObject({
      cases: 5,
      evaluated: 4,
      successes: 3,
      successRate: 0.75,
      injectionFailures: 1,
      interval: { low: 0.301, high: 0.954 },
    });
    expect(cell(MODEL_A, "ThinkRemed", "hard")).toMatchObject({
      evaluated: 3,
      successes: 2,
      injectionFailures: 1,
      errors: 1,
      attemptsPerSuccess: 1.5,
    });
    expect(cell(MODEL_B, "ThinkRemed", "hard")).toMatchObject({ evaluated: 3, successes: 1, interrupted: 1 });
    expect(cell(MODEL_B, "SoloGen", "hard")).toMatchObject({
      successRate: 0,
      attemptsPerSuccess: null,
      interval: { low: 0 },
    });
  });

  it("sets the reference verdict beside the health verdict", () => {
    expect(cell(MODEL_A, "SoloGen", "hard").verdicts).toEqual({
      referencePasses: 2,
      referenceRate: 0.5,
      healthPasses: 3,
      healthRate: 0.75,
      referencePassHealthFail: 1,
    });
    expect(cell(MODEL_B, "ThinkRemed", "easy").verdicts.referencePassHealthFail).toBe(1);
    expect(cell(MODEL_A, "ThinkRemed", "easy").verdicts.referencePassHealthFail).toBe(0);
  });

  it("sums tokens and knows cost only where a price was reported", () => {
    expect(cell(MODEL_A, "SoloGen", "easy")).toMatchObject({
      tokens: { input: 4000, output: 800, perCase: 1200 },
      cost: { usd: 0.04, perCase: 0.01 },
    });
    expect(cell(MODEL_B, "SoloGen", "easy").cost).toBeNull();
  });

  it("pools per failure type, per system, and per model × method", () => {
    expect(report.series.map((s) => `${s.model}/${s.method}`)).toEqual([
      `${MODEL_A}/SoloGen`,
      `${MODEL_A}/ThinkRemed`,
      `${MODEL_B}/SoloGen`,
      `${MODEL_B}/ThinkRemed`,
    ]);
    expect(report.tiers).toEqual(["easy", "hard"]);
    const podFailure = report.perFailure.find((f) => f.failure === "pod-failure")!;
    expect(podFailure.cells.map((c) => c && `${c.successes}/${c.evaluated}`)).toEqual([
      "2/2",
      "2/2",
      "1/2",
      "2/2",
    ]);
    expect(report.perSystem.map((s) => [s.env, s.method, s.successes, s.evaluated])).toEqual([
      ["online-boutique", "SoloGen", 1, 7],
      ["online-boutique", "ThinkRemed", 3, 7],
      ["simple-micro", "SoloGen", 4, 8],
      ["simple-micro", "ThinkRemed", 6, 7],
    ]);
    expect(report.bySeries[1]).toMatchObject({
      model: MODEL_A,
      method: "ThinkRemed",
      successes: 6,
      evaluated: 7,
    });
  });
});

describe("rendering", () => {
  it("prints Markdown tables with the rates, intervals, cost and verdicts", () => {
    const md = render(report, "md");
    expect(md).toContain(
      "| gpt-4o | SoloGen | easy | 75.0% (3/4) | 30.1% – 95.4% | 4 | 1 | 0 / 0 | 1 | 45 |",
    );
    expect(md).toContain("| qwen2.5-7b | SoloGen | hard | 0.0% (0/3) | 0.0% – 56.1% | 3 | 1 |");
    expect(md).toContain("| gpt-4o | SoloGen | hard | 4,000 | 800 | 1,200 | $0.04 | $0.01 |");
    expect(md).toContain("| qwen2.5-7b | SoloGen | easy | 3,200 | 400 | 900 | - | - |");
    expect(md).toContain("| gpt-4o | SoloGen | hard | 4 | 50.0% (2/4) | 75.0% (3/4) | 1 |");
    expect(md).toContain(
      "| failure type | gpt-4o / SoloGen | gpt-4o / ThinkRemed | qwen2.5-7b / SoloGen | qwen2.5-7b / ThinkRemed |",
    );
    expect(md).toContain("| pod-failure | 100.0% (2/2) | 100.0% (2/2) | 50.0% (1/2) | 100.0% (2/2) |");
    expect(md).toContain("| simple-micro | gpt-4o | ThinkRemed | 85.7% (6/7) | 48.7% – 97.4% | 7 | 1 |");
  });

  it("gives the same data as JSON", () => {
    const json = JSON.parse(render(report, "json"));
    expect(Object.keys(json)).toEqual([
      "generatedAt",
      "runs",
      "series",
      "tiers",
      "levels",
      "byTier",
      "bySeries",
      "perSystem",
      "perFailure",
      "localization",
      "reasonCodes",
      "reasons",
      "reasonsPerFailure",
      "leaderboard",
    ]);
    expect(json.byTier).toHaveLength(8);
    // best first: ThinkRemed repaired all four easy cases; runs without a report level told everything
    expect(json.leaderboard).toHaveLength(8);
    expect(json.leaderboard[0]).toMatchObject({
      model: MODEL_A,
      method: "ThinkRemed",
      tier: "easy",
      level: "full",
      successRate: 1,
      passK: null,
    });
    expect(json.byTier[0]).toMatchObject({
      model: MODEL_A,
      method: "SoloGen",
      tier: "easy",
      systems: ["simple-micro"],
      successRate: 0.75,
      interval: { low: 0.301, high: 0.954 },
    });
    expect(json.perFailure).toHaveLength(4);
  });

  it("plots cost when every model has prices, tokens otherwise", () => {
    expect(render(report, "html")).toContain("Tokens per evaluated case");
    const priced = render(buildReport(loadRuns([logDirs[0]])), "html");
    expect(priced).toContain("Cost per evaluated case (USD)");
    expect(priced).toContain("Cost against success");
  });

  it("puts a custom tier after the reference's and marks where a series never ran it", () => {
    const runs = loadRuns(logDirs);
    const smoke = { ...runs[0], tier: "smoke" }; // gpt-4o / SoloGen only
    const r = buildReport([smoke, ...runs]);
    expect(r.tiers).toEqual(["easy", "hard", "smoke"]);
    expect(render(r, "html").match(/>n\/a<\/text>/g)).toHaveLength(3);
  });

  it("counts why cases did not succeed, per model × method × tier and per failure type", () => {
    // reasons derived from the fixtures' verdicts and statuses (no reason recorded on them)
    const cell = (model: string, method: string, tier: string) =>
      report.reasons.find((x) => x.model === model && x.method === method && x.tier === tier)?.counts;
    expect(cell(MODEL_A, "SoloGen", "hard")).toEqual({ ineffective: 2, collateral: 1 });
    expect(cell(MODEL_A, "ThinkRemed", "hard")).toEqual({ ineffective: 1, "not-injected": 1, harness: 1 });
    expect(cell(MODEL_B, "ThinkRemed", "hard")).toEqual({ ineffective: 2, interrupted: 1 });
    expect(report.reasonCodes).toEqual([
      "ineffective",
      "collateral",
      "not-injected",
      "interrupted",
      "harness",
    ]);
    const md = render(report, "md");
    expect(md).toContain("## Why cases did not succeed");
    expect(md).toContain("| gpt-4o | SoloGen | hard | 3 | 2 | 1 | 0 | 0 | 0 |");
    expect(md).toContain(
      "| collateral | the fault's check passed and the namespace-health check failed (what broke) |",
    );
  });

  it("sets exactly two series side by side, case by case", () => {
    // gpt-4o alone: SoloGen and ThinkRemed over the same experiment files and seed
    const r = buildReport(loadRuns([logDirs[0]]));
    expect(r.diff?.counts).toEqual({ both: 4, "a-only": 0, "b-only": 2, neither: 2 });
    expect(r.diff?.unpaired).toBe(2);
    const md = render(r, "md");
    expect(md).toContain("## Side by side: A = gpt-4o / SoloGen, B = gpt-4o / ThinkRemed");
    expect(md).toMatch(
      /\| simple-micro \| easy \| 4 \| pod-config-error \| time-service \| solved by B only \| ineffective: not ok \| solved \|/,
    );
    expect(report.diff).toBeUndefined(); // four series: no pairing
  });

  it("refuses an unknown format with E_USAGE", () => {
    expect(() => parseFormat("pdf")).toThrow(expect.objectContaining({ code: "E_USAGE" }));
  });
});
