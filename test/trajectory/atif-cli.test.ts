// Issue 24, item 3, through the built CLI on the embedded cluster: a ThinkRemed run writes
// trajectory.json beside each case's records, valid ATIF v1.4, and `microremed show --format
// atif` prints it for a case, and every case's as a JSON array without one.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AtifTrajectory } from "../../src/trajectory/index.js";
import { checkBuilt, cli, readCases, readJson, tmp, write } from "../cli/cli-helpers.js";
import { atifProblems } from "./atif-check.js";

beforeAll(checkBuilt);

describe("trajectories through the CLI", () => {
  it("a ThinkRemed run writes a valid trajectory.json per case; show --format atif prints it", async () => {
    const dir = tmp("mr-atif-");
    const exp = write(dir, "exp.yaml", "cases:\n  - {failure: pod-fail, target: time-service}\n");
    const r = await cli(
      [
        "run",
        "--env",
        "simple-micro",
        "--model",
        "oracle",
        "--remediate-method",
        "ThinkRemed",
        "--experiment-path",
        exp,
        "--save-path",
        dir,
        "--run-name",
        "atif",
        "--speed",
        "600",
        "--settle",
        "5",
      ],
      { timeout: 400_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const run = join(dir, "atif");
    const [rec] = readCases(run);
    const file = join(run, "case-001", "trajectory.json");
    expect(existsSync(file)).toBe(true);
    const t = readJson<AtifTrajectory>(file);
    expect(atifProblems(t)).toEqual([]);
    expect(t).toMatchObject({
      schema_version: "ATIF-v1.4",
      session_id: "atif/case-001",
      agent: { name: "ThinkRemed", model_name: "oracle" },
      extra: { microremed: { case: 1, status: rec.status, failure: "pod-fail" } },
    });
    // the Coordinator's turn, stamped by the runner, then the executor's run of its playbook
    const turn = t.steps.find((s) => s.tool_calls?.some((c) => c.function_name === "print_playbook"));
    expect(turn?.metrics?.prompt_tokens).toBeGreaterThan(0);
    expect(Date.parse(turn?.timestamp ?? "")).toBeGreaterThanOrEqual(Date.parse(rec.startedAt));
    const ran = t.steps.find((s) => s.extra?.execution);
    expect(ran?.observation?.results[0].content).toMatch(/^ansible-playbook /);
    expect(t.final_metrics?.total_prompt_tokens).toBe(rec.tokens.inputTokens);

    const one = await cli(["show", run, "1", "--format", "atif"]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual(t);
    const all = await cli(["show", run, "--format", "atif"]);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual([t]);
    const bad = await cli(["show", run]);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("--format atif for every case");
  }, 420_000);
});
