// Every failure type of Simple-Micro as a Harbor task, run without a container (task-steps.ts):
// the oracle's solve.sh scores reward 1 and doing nothing 0, at the full level; the same on an
// expert-tier case (judged by what users see, held 60 s); and the symptom level's oracle (an
// alert that names neither service nor failure) on one case. The agent's
// steps run at the tasks' own clock speed (1), so a chaos's duration (pod-fail's PodChaos runs
// 1200 s) means what it means on k3s. In the long lane (test/lanes.ts): export.test.ts runs one
// case in npm test.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli } from "../cli/cli-helpers.js";
import { caseOf, runTask } from "./task-steps.js";

let out: string;

/** The tasks' own clock speeds (the harness's 60, the agent's 1), as a user exports them. */
async function exportTo(dir: string, tiers: string, extra: string[] = []): Promise<string[]> {
  const r = await cli(["export", "harbor", "--env", "simple-micro", "--tiers", tiers, ...extra, dir]);
  expect(r.exitCode, r.stderr).toBe(0);
  return readdirSync(dir).map((d) => join(dir, d));
}

/** One task per failure type, the first the export wrote for it. */
function onePerType(tasks: string[]): Map<string, string> {
  const by = new Map<string, string>();
  for (const t of tasks) {
    const c = caseOf(t);
    if (c.faults.length === 1 && !by.has(c.faults[0].failure)) by.set(c.faults[0].failure, t);
  }
  return by;
}

let full: Map<string, string>;

beforeAll(async () => {
  checkBuilt();
  out = mkdtempSync(join(tmpdir(), "mr-export-all-"));
  full = onePerType(await exportTo(join(out, "full"), "easy,medium,hard"));
}, 300_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("every failure type of Simple-Micro as a Harbor task", () => {
  it("covers the reference's seven types", () => {
    expect([...full.keys()].sort()).toEqual([
      "cpu-stress",
      "disk-io",
      "memory-stress",
      "network-delay",
      "network-loss",
      "pod-config-error",
      "pod-fail",
    ]);
  });

  it.each([
    "cpu-stress",
    "memory-stress",
    "disk-io",
    "network-delay",
    "network-loss",
    "pod-fail",
    "pod-config-error",
  ])(
    "%s: the oracle scores 1, doing nothing 0",
    async (type) => {
      const t = full.get(type);
      if (!t) throw new Error(`no task of ${type}`);
      const solved = await runTask(t, true);
      expect(solved.reward, solved.why).toEqual({ reward: 1, diagnosis: 1 });
      const untouched = await runTask(t, false);
      expect(untouched.reward, untouched.why).toEqual({ reward: 0 });
    },
    600_000,
  );

  it("expert tier (judged by what users see, with a 60 s hold): the oracle scores 1, doing nothing 0", async () => {
    const tasks = await exportTo(join(out, "expert"), "expert", ["--limit", "1"]);
    const solved = await runTask(tasks[0], true);
    expect(solved.reward, solved.why).toEqual({ reward: 1, diagnosis: 1 });
    const untouched = await runTask(tasks[0], false);
    expect(untouched.reward, untouched.why).toEqual({ reward: 0 });
  }, 600_000);

  it("symptom level: the oracle finds and repairs the fault from the alert", async () => {
    const tasks = await exportTo(join(out, "symptom"), "easy", ["--report", "symptom", "--limit", "1"]);
    // the alert names no service: the oracle's playbook finds it, and states no diagnosis
    const solved = await runTask(tasks[0], true);
    expect(solved.reward, solved.why).toEqual({ reward: 1 });
  }, 600_000);
});
