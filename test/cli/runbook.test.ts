// The runbook baseline (models/runbook, src/llm/builtin/runbook.ts) through the CLI on
// Simple-Micro at the symptom level, where the report names no service: the blind steps repair
// what one of them undoes (a Deployment scaled to 0, a NetworkPolicy that denies) and not a
// Service whose targetPort is wrong: it keeps its endpoints, and no undo or restart touches it.
// (A fault that a restart repairs is repaired whenever the undone rollout, a benign one of the
// namespace's history, is the target's: the runbook's score on those is the luck of the draw.)
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, readCases, readJson } from "./cli-helpers.js";
import { run } from "./levels.js";

beforeAll(checkBuilt);

describe("the runbook baseline", () => {
  it("repairs a Deployment scaled to 0 and a denying NetworkPolicy from an alert, and not a Service whose targetPort is wrong", async () => {
    const faults = [
      ["scale-zero", "hello-service"],
      ["netpol-deny", "time-service"],
      ["svc-targetport", "hello-service"],
    ];
    const { r, runDir } = await run("symptom", "runbook", faults);
    expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
    const cases = readCases(runDir);
    expect(cases.map((c) => [c.failure, c.status])).toEqual([
      ["scale-zero", "success"],
      ["netpol-deny", "success"],
      ["svc-targetport", "failure"],
    ]);
    const summary = readJson(join(runDir, "summary.json")) as { model?: string };
    expect(JSON.stringify(summary)).toContain("runbook");
  }, 900_000);
});
