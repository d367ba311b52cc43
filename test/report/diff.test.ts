// `microremed diff`'s text: each side's success over the paired cases, "-" when a side evaluated
// nothing (every case an error of the run), with its errors beside it; then the four groups.
import { describe, expect, it } from "vitest";
import type { DiffReport, DiffRow, DiffSide } from "../../src/report/diff.js";
import { formatDiff } from "../../src/report/index.js";

const ok: DiffSide = { status: "success", success: true };
const failed: DiffSide = {
  status: "failure",
  success: false,
  reason: { code: "ineffective", detail: "still slow" },
};
const outage: DiffSide = { status: "error", success: false, reason: { code: "outage", detail: "503" } };

const row = (index: number, a: DiffSide, b: DiffSide, group: DiffRow["group"]): DiffRow => ({
  env: "simple-micro",
  tier: "easy",
  index,
  failure: "pod-fail",
  target: "time-service",
  group,
  a,
  b,
});

describe("formatDiff", () => {
  it("prints each side's rate, and '-' with the errors for a side that evaluated nothing", () => {
    const d: DiffReport = {
      a: "oracle / SoloGen (runs/a)",
      b: "m / SoloGen (runs/b)",
      rows: [row(1, ok, outage, "a-only"), row(2, failed, outage, "neither")],
      counts: { both: 0, "a-only": 1, "b-only": 0, neither: 1 },
      unpaired: 0,
    };
    const lines = formatDiff(d).split("\n");
    expect(lines[0]).toBe("A: oracle / SoloGen (runs/a): 50.0% (1/2)");
    expect(lines[1]).toBe("B: m / SoloGen (runs/b): - (0/0; 2 errors of the run, not counted)");
    expect(lines).toContain("    B: outage: 503");
  });
});
