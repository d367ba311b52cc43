// A run folder written before the injection verdict said faultShown (its `pass` meant "the fault
// showed") is still read by `report`, `show` and `diff`, and says what the verdict meant.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReport, diffRuns, formatTrace, loadRun, readTrace } from "../../src/report/index.js";
import { caseRecord, RUNS } from "./fixtures.js";

/** The fixture's records as an older version wrote them: injection {pass} instead of {faultShown}. */
function oldRun(model: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "report-legacy-")), "SoloGen_easy");
  mkdirSync(join(dir, "case-001"), { recursive: true });
  const run = { ...RUNS[0], model };
  const lines = [...run.outcomes].map((o, i) => {
    const rec = caseRecord(run, o, i);
    const { faultShown, ...reading } = rec.verdicts.injection!;
    return JSON.stringify({
      ...rec,
      verdicts: { ...rec.verdicts, injection: { pass: faultShown, ...reading } },
    });
  });
  writeFileSync(join(dir, "cases.jsonl"), `${lines.join("\n")}\n`);
  writeFileSync(
    join(dir, "run.json"),
    JSON.stringify({
      config: { env: run.env, method: run.method, model, experimentPath: "easy.txt", seed: 42 },
    }),
  );
  return dir;
}

describe("a run folder from before faultShown", () => {
  const a = loadRun(oldRun("old-a"));
  const b = loadRun(oldRun("old-b"));

  it("report: counts its cases as they ended (SSSFI: 3 of 4 evaluated, one injection failure)", () => {
    const [cell] = buildReport([a]).byTier;
    expect(cell).toMatchObject({ evaluated: 4, successes: 3, injectionFailures: 1 });
    expect(a.cases.map((c) => c.verdicts.injection?.faultShown)).toEqual([true, true, true, true, false]);
  });

  it("show: the injection verdict says whether the fault showed", () => {
    expect(formatTrace(readTrace(a.dir, a.cases[0]))).toContain("injection: fault shown: ok");
    expect(formatTrace(readTrace(a.dir, a.cases[4]))).toContain("injection: fault not shown: not ok");
  });

  it("diff: pairs its cases with another run's", () => {
    const d = diffRuns(a, b);
    expect(d.rows.map((r) => r.group)).toEqual(["both", "both", "both", "neither", "neither"]);
  });
});
