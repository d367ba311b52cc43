// Through the built CLI on the embedded cluster: a ThinkRemed run writes
// trajectory.json beside each case's records, valid ATIF v1.4, and `microremed show --format
// atif` prints it for a case, and every case's as a JSON array without one. A model with prices
// (deepseek/deepseek-chat of the shipped registry, its API spoken by a local wire server) gives
// each turn its cost_usd and the trajectory the case record's total cost.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AtifTrajectory } from "../../src/trajectory/index.js";
import { checkBuilt, cli, readCases, readJson, tmp, write } from "../cli/cli-helpers.js";
import { delta, openaiFrames, startWireServer } from "../llm/wire-server.js";
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

  it("a model with prices: each turn's cost_usd, and total_cost_usd is the case record's cost", async () => {
    const fix =
      "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.shell: kubectl rollout restart deployment/time-service -n simple-micro && kubectl rollout status deployment/time-service -n simple-micro --timeout=600s\n";
    // DeepSeek's wire format: a native tool call, then usage with its cache fields
    const server = await startWireServer(() => ({
      sse: openaiFrames([
        delta(
          {
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: "call-1",
                type: "function",
                function: { name: "print_playbook", arguments: JSON.stringify({ playbook: fix }) },
              },
            ],
          },
          "tool_calls",
        ),
        {
          id: "chatcmpl-1",
          object: "chat.completion.chunk",
          created: 1,
          model: "deepseek-chat",
          choices: [],
          usage: {
            prompt_tokens: 900,
            completion_tokens: 100,
            total_tokens: 1000,
            prompt_cache_hit_tokens: 800,
            prompt_cache_miss_tokens: 100,
          },
        },
      ]),
    }));
    const dir = tmp("mr-atif-cost-");
    const exp = write(dir, "exp.yaml", "cases:\n  - {failure: pod-fail, target: time-service}\n");
    const key = process.env.DEEPSEEK_API_KEY;
    process.env.DEEPSEEK_API_KEY = "ds-test-key";
    try {
      const r = await cli(
        [
          ...["run", "--env", "simple-micro", "--remediate-method", "SoloGen"],
          ...["--model", "deepseek/deepseek-chat", "--base-url", `${server.url}/v1`],
          ...["--experiment-path", exp, "--save-path", dir, "--run-name", "cost"],
          ...["--speed", "600", "--settle", "5"],
        ],
        { timeout: 300_000 },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    } finally {
      if (key === undefined) delete process.env.DEEPSEEK_API_KEY;
      else process.env.DEEPSEEK_API_KEY = key;
      await server.close();
    }
    const [rec] = readCases(join(dir, "cost"));
    expect(rec).toMatchObject({ status: "success", model: "deepseek/deepseek-chat" });
    // the registry's prices (USD per million: 0.28 input, 0.028 cached, 0.42 output), per call
    const perCall = (100 * 0.28 + 800 * 0.028 + 100 * 0.42) / 1e6;
    const calls = server.seen.length;
    expect(calls).toBeGreaterThan(0);
    expect(rec.tokens.costUsd).toBeCloseTo(calls * perCall, 12);
    const t = readJson<AtifTrajectory>(join(dir, "cost", "case-001", "trajectory.json"));
    expect(atifProblems(t)).toEqual([]);
    expect(t.final_metrics?.total_cost_usd).toBe(rec.tokens.costUsd);
    const turns = t.steps.filter((s) => s.source === "agent");
    expect(turns.map((s) => s.metrics?.cost_usd)).toEqual(turns.map(() => perCall));
    expect(turns.map((s) => s.metrics?.cached_tokens)).toEqual(turns.map(() => 800));
  }, 320_000);
});
