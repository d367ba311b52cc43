// Run folders as `run --trials k --shard i/n` leaves them (run.json with config, plannedCases,
// trials and shard; cases.jsonl append-only), written into a temp dir: loading keeps the last
// record of each case and trial, `report` merges the shards of one run and refuses shards that
// do not make one run up exactly, and the reliability tables pool the trials.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isMicroRemedError } from "../../src/errors.js";
import { buildReport, loadRuns, render } from "../../src/report/index.js";
import type { CaseRecord } from "../../src/runlog/records.js";
import { caseRecord, RUNS } from "./fixtures.js";

const root = mkdtempSync(join(tmpdir(), "microremed-shards-"));
let n = 0;

/** outcomes: one string per case index, one letter per trial (S success, F failure, E error). */
function writeRun(opts: {
  shard?: string;
  plannedCases: number;
  trials: number;
  cases: Record<number, string>;
  seed?: number;
  namespace?: string;
  extra?: CaseRecord[];
}): string {
  const dir = join(root, `run-${++n}`);
  mkdirSync(dir, { recursive: true });
  const config = {
    env: "simple-micro",
    namespace: opts.namespace ?? "simple-micro",
    experimentPath: `/home/u${n}/experiments/easy.txt`,
    experiments: null,
    method: "SoloGen",
    model: "oracle",
    seed: opts.seed ?? 42,
    trials: opts.trials,
    shard: opts.shard ?? null,
  };
  writeFileSync(
    join(dir, "run.json"),
    JSON.stringify({
      config,
      plannedCases: opts.plannedCases,
      trials: opts.trials,
      shard: opts.shard ?? null,
    }),
  );
  const base = { ...RUNS[0], model: "oracle", method: "SoloGen" };
  const lines: CaseRecord[] = [];
  for (const [index, outs] of Object.entries(opts.cases))
    [...outs].forEach((o, t) => {
      const r = caseRecord(base, o, Number(index) - 1);
      r.index = Number(index);
      r.failure = "pod-failure";
      if (opts.trials > 1) r.trial = t + 1;
      lines.push(r);
    });
  lines.push(...(opts.extra ?? []));
  writeFileSync(join(dir, "cases.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return dir;
}

function refusal(dirs: string[]): string {
  try {
    loadRuns(dirs);
  } catch (e) {
    if (isMicroRemedError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  throw new Error("not refused");
}

describe("shards merged by report", () => {
  // a run of 5 cases × 2 trials in two shards: cases 1, 3, 5 and cases 2, 4
  const one = writeRun({ shard: "1/2", plannedCases: 5, trials: 2, cases: { 1: "SS", 3: "SF", 5: "FF" } });
  const two = writeRun({
    shard: "2/2",
    plannedCases: 5,
    trials: 2,
    cases: { 2: "SS", 4: "FS" },
    namespace: "mr-1", // shards on one cluster run in namespaces of their own
  });

  it("becomes one run with every case once, sorted, traces read from each shard's folder", () => {
    const runs = loadRuns([two, one]);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run.shard).toBeNull();
    expect(run.parts!.map((p) => p.dir)).toEqual([one, two]);
    expect(run.cases.map((c) => `${c.index}.${c.trial}`)).toEqual([
      "1.1",
      "1.2",
      "2.1",
      "2.2",
      "3.1",
      "3.2",
      "4.1",
      "4.2",
      "5.1",
      "5.2",
    ]);
    const report = buildReport(runs);
    expect(report.runs).toHaveLength(1);
    expect(report.runs[0]).toMatchObject({ shards: [one, two], cases: 10, trials: 2 });
    expect(report.byTier[0]).toMatchObject({ evaluated: 10, successes: 6 });
    // per case: 2/2, 2/2, 1/2, 1/2, 0/2 → pass@1 0.6, pass@2 0.8, pass^2 0.4
    expect(report.reliability!.byTier[0]).toMatchObject({
      tier: "easy",
      k: 2,
      passK: { cases: 5, passAt1: 0.6, passAtK: 0.8, passHatK: 0.4 },
    });
    const md = render(report, "md");
    expect(md).toContain("| oracle | SoloGen | easy | 2 | 5 | 60.0% (");
    expect(md).toContain("| pass@1 (95% interval) | pass@2 (95% interval) | pass^2 (95% interval) |");
    expect(md).toContain("(2 trials each)");
  });

  it("refuses a missing shard", () => {
    expect(refusal([one])).toBe(`E_CONFIG: shard 2/2 of the run in ${one} (shard 1/2) is missing`);
  });

  it("refuses a shard given twice", () => {
    const again = writeRun({ shard: "2/2", plannedCases: 5, trials: 2, cases: { 2: "SS", 4: "FS" } });
    expect(refusal([one, two, again])).toBe(
      `E_CONFIG: shard 2/2 is given twice (${two} and ${again}): its cases would count twice`,
    );
  });

  it("refuses a shard with a case missing (a shard that did not finish)", () => {
    const cut = writeRun({ shard: "2/2", plannedCases: 5, trials: 2, cases: { 2: "SS", 4: "F" } });
    expect(refusal([one, cut])).toBe(
      `E_CONFIG: the shards in ${one} (shard 1/2), ${cut} (shard 2/2) miss case 4 trial 2 (shard 2/2) of the run's 5 cases × 2 trials`,
    );
  });

  it("refuses a case in two shards, or in the wrong one", () => {
    const extra = caseRecord({ ...RUNS[0], model: "oracle", method: "SoloGen" }, "S", 0);
    extra.trial = 1; // case 1 trial 1 belongs to shard 1/2, which has it too
    const doubled = writeRun({
      shard: "2/2",
      plannedCases: 5,
      trials: 2,
      cases: { 2: "SS", 4: "FS" },
      extra: [extra],
    });
    expect(refusal([one, doubled])).toBe(
      `E_CONFIG: the shards in ${one} (shard 1/2), ${doubled} (shard 2/2) hold case 1 trial 1 in ${one} and ${doubled}: a case may be in one shard only`,
    );
  });

  it("refuses shards of different runs, saying what differs", () => {
    const seeded = writeRun({
      shard: "2/2",
      plannedCases: 5,
      trials: 2,
      cases: { 2: "SS", 4: "FS" },
      seed: 7,
    });
    expect(refusal([one, seeded])).toBe(
      `E_CONFIG: ${one} and ${seeded} are not shards of one run: seed 42 vs 7`,
    );
    const split = writeRun({ shard: "2/3", plannedCases: 5, trials: 2, cases: { 2: "SS" } });
    expect(refusal([one, split])).toMatch(
      /are not shards of one run: shard 1\/2 vs 2\/3 \(split into 2 and 3\)$/,
    );
    const trials = writeRun({ shard: "2/2", plannedCases: 5, trials: 1, cases: { 2: "S", 4: "F" } });
    expect(refusal([one, trials])).toMatch(/are not shards of one run: trials 2 vs 1$/);
  });
});

describe("records read for numbers", () => {
  it("count the last record of each case: a resumed run's error replaced by its re-run", () => {
    const rerun = caseRecord({ ...RUNS[0], model: "oracle", method: "SoloGen" }, "S", 1);
    const dir = writeRun({ plannedCases: 2, trials: 1, cases: { 1: "S", 2: "E" }, extra: [rerun] });
    const [run] = loadRuns([dir]);
    expect(run.cases.map((c) => [c.index, c.status])).toEqual([
      [1, "success"],
      [2, "success"],
    ]);
    const report = buildReport([run]);
    expect(report.byTier[0]).toMatchObject({ cases: 2, evaluated: 2, successes: 2, errors: 0 });
    expect(report.reliability).toBeUndefined();
    expect(render(report, "md")).not.toContain("Reliability");
  });
});
