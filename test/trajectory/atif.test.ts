// Every method's conversation as an ATIF v1.4 trajectory, validated against
// the schema derived from the spec. Each method runs with real small implementations behind its
// seams (thinkremed-helpers.ts), its model wrapped as the runner wraps it (each turn stamped with
// its time and usage); the record is made as the runner makes it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CallLog } from "../../src/mcp/index.js";
import { CommandAgent } from "../../src/methods/command.js";
import { caseTools } from "../../src/methods/mcp.js";
import { SoloGen } from "../../src/methods/sologen.js";
import { ThinkRemed } from "../../src/methods/thinkremed/index.js";
import type { AgentLauncher, Attempt, MethodContext, MethodResult } from "../../src/methods/types.js";
import { caseRecord } from "../../src/runlog/records.js";
import { emptyTimes, timedModel } from "../../src/runner/timing.js";
import { type AtifStep, type AtifTrajectory, toTrajectory } from "../../src/trajectory/index.js";
import { PLAYBOOK, print, probe, setup, type Turn } from "../methods/thinkremed-helpers.js";
import { atifProblems } from "./atif-check.js";

const START = "2025-10-16T14:30:00.000Z";
/** agent.version: the harness's, as package.json says it. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

function trajectory(
  method: string,
  ctx: MethodContext,
  r: MethodResult,
  model = ctx.model.id,
): AtifTrajectory {
  const rec = caseRecord(
    {
      index: 1,
      faults: [{ failure: "cpu-stress", target: "cart" }],
      method,
      model,
      maxAttempts: ctx.maxAttempts,
      startedAt: START,
      phases: {},
      errors: [],
      status: "success",
      solved: r,
    },
    "2025-10-16T14:31:00.000Z",
  );
  // through JSON, as conversation.json is read back
  const recorded = JSON.parse(JSON.stringify({ report: ctx.report, ...r }));
  const t = toTrajectory("run/case-001", rec, recorded);
  expect(atifProblems(t)).toEqual([]);
  return t;
}

/** The method's context with its model wrapped as the runner wraps it. */
function runnerSetup(turns: Turn[], o: Parameters<typeof setup>[1] = {}) {
  const s = setup(turns, o);
  s.ctx.model = timedModel(s.ctx.model, emptyTimes());
  return s;
}

const sources = (t: AtifTrajectory) => t.steps.map((s) => s.source);
const calls = (s: AtifStep) => (s.tool_calls ?? []).map((c) => c.function_name);

describe("ATIF trajectories", () => {
  it("SoloGen: the prompts, the model's turn with its tool call and metrics, then the executor's run", async () => {
    const { ctx } = runnerSetup([print()]);
    const t = trajectory("SoloGen", ctx, await new SoloGen().remediate(ctx));
    expect(t.schema_version).toBe("ATIF-v1.4");
    expect(t.agent).toMatchObject({ name: "SoloGen", model_name: ctx.model.id });
    expect(sources(t)).toEqual(["system", "user", "agent", "system"]);
    const turn = t.steps[2];
    expect(calls(turn)).toEqual(["print_playbook"]);
    expect(turn.tool_calls?.[0].arguments).toEqual({ playbook: PLAYBOOK });
    expect(turn.metrics).toMatchObject({ prompt_tokens: 200, completion_tokens: 50 });
    expect(turn.model_name).toBe(ctx.model.id);
    // stamped by the runner's model wrapper; the prompts before it carry the case's start
    expect(Date.parse(turn.timestamp ?? "")).toBeGreaterThan(Date.parse(START));
    expect(t.steps[0].timestamp).toBe(START);
    expect(t.steps[3].observation?.results[0].content).toMatch(/^ansible-playbook finished without errors/);
    expect(t.steps[3].extra).toMatchObject({ attempt: 1, playbook: PLAYBOOK, execution: { ok: true } });
    expect(t.final_metrics).toMatchObject({
      total_prompt_tokens: 200,
      total_completion_tokens: 50,
      total_steps: 4,
    });
    expect(t.extra).toMatchObject({ microremed: { case: 1, status: "success", failure: "cpu-stress" } });
  });

  it("ThinkRemed: probes answered in their step, each attempt's run and verdict after its playbook", async () => {
    const { ctx } = runnerSetup(
      [print("- hosts: localhost\n  tasks: []\n"), probe("kubectl get pods"), print()],
      {
        results: [{ ok: false, exitCode: 2, output: "PLAY RECAP failed=1" }],
        verdicts: [
          { pass: false, reason: "cart still saturated", measurements: {} },
          { pass: true, reason: "cart is healthy", measurements: {} },
        ],
      },
    );
    const t = trajectory("ThinkRemed", ctx, await new ThinkRemed().remediate(ctx));
    const agent = t.steps.filter((s) => s.source === "agent");
    expect(agent.map(calls)).toEqual([["print_playbook"], ["probe_system"], ["print_playbook"]]);
    const probeStep = agent[1];
    expect(probeStep.observation?.results).toEqual([
      { source_call_id: probeStep.tool_calls?.[0].tool_call_id, content: "observed: kubectl get pods" },
    ]);
    const runs = t.steps.filter((s) => s.extra?.execution);
    expect(runs.map((s) => s.step_id - 1)).toEqual([
      t.steps.indexOf(agent[0]) + 1,
      t.steps.indexOf(agent[2]) + 1,
    ]);
    expect(runs[0].observation?.results.map((r) => r.content)).toEqual([
      expect.stringMatching(/^ansible-playbook failed \(exit code 2\)[\s\S]*PLAY RECAP failed=1/),
      "Verification: failed: cart still saturated",
    ]);
    expect(runs[1].observation?.results[1].content).toBe("Verification: passed: cart is healthy");
    // the reflection after the failed attempt is a user step between the two attempts
    const reflection = t.steps.findIndex(
      (s) => s.source === "user" && s.message.includes("has not been remediated"),
    );
    expect(reflection).toBeGreaterThan(t.steps.indexOf(runs[0]));
    expect(reflection).toBeLessThan(t.steps.indexOf(agent[1]));
    expect(t.final_metrics?.total_prompt_tokens).toBe(500);
  });

  it("cmd: the agent's input and its stdout, no model metrics, then the playbook it printed", async () => {
    const { ctx } = runnerSetup([print()]); // a model the method never asks
    const launcher: AgentLauncher = {
      launch: async () => ({ exitCode: 0, stdout: PLAYBOOK, stderr: "", timedOut: false, durationMs: 40 }),
    };
    ctx.launcher = launcher;
    const method = new CommandAgent("./agent.sh");
    const t = trajectory(method.name, ctx, await method.remediate(ctx), "noop");
    expect(t.agent).toEqual({
      name: "cmd:./agent.sh",
      version: PACKAGE_VERSION,
      extra: { harness: "microremed", harness_model: "noop" },
    });
    expect(sources(t)).toEqual(["user", "agent", "system"]);
    expect(JSON.parse(t.steps[0].message)).toMatchObject({ namespace: "shop", service: "cart" });
    expect(t.steps[1]).not.toHaveProperty("metrics");
    expect(t.steps[1]).not.toHaveProperty("model_name");
    expect(t.steps[2].extra).toMatchObject({ playbook: PLAYBOOK });
    expect(t.extra).toMatchObject({ microremed: { agent_runs: [{ exitCode: 0, durationMs: 40 }] } });
  });

  it("mcp: each MCP call is an agent step with its time and answer; run_playbook is not repeated", async () => {
    const { ctx } = runnerSetup([print()]); // a model the method never asks
    const attempt: Attempt = { index: 1, problems: [], probeRounds: 0 };
    const launcher: AgentLauncher = {
      launch: async () => ({ exitCode: 0, stdout: "", stderr: "", timedOut: false, durationMs: 1 }),
    };
    const prober = ctx.prober;
    if (!prober) throw new Error("setup gives a prober");
    const tools = caseTools({ ...ctx, launcher, prober }, attempt);
    const log = new CallLog();
    await log.record("get_report", {}, async () => tools.report);
    await log.record("kubectl", { command: "get pods" }, () => tools.probe("kubectl get pods"));
    await log.record("run_playbook", { playbook: PLAYBOOK }, async () =>
      JSON.stringify({ ok: (await tools.runPlaybook(PLAYBOOK)).ok }),
    );
    await log.record("submit", { service: "cart" }, async () => "submitted");
    const r: MethodResult = {
      attempts: [attempt],
      conversation: [
        { role: "user", content: "{}" },
        ...log.messages(),
        { role: "assistant", content: "done" },
      ],
      usage: {},
    };
    const t = trajectory("mcp:node agent.mjs", ctx, r, "noop");
    expect(sources(t)).toEqual(["user", "agent", "agent", "agent", "agent", "agent"]);
    expect(t.steps.slice(1, 5).map(calls)).toEqual([
      ["get_report"],
      ["kubectl"],
      ["run_playbook"],
      ["submit"],
    ]);
    expect(t.steps[1].timestamp).toBe(log.calls[0].at);
    expect(t.steps[2].observation?.results[0]).toEqual({
      source_call_id: "mcp-2",
      content: "observed: kubectl get pods",
    });
    expect(t.steps[3].observation?.results[0].content).toBe('{"ok":true}');
  });

  it("a module method that asked no model: the report it was handed, then its playbook's run", async () => {
    const { ctx } = runnerSetup([print()]); // a model the method never asks
    const execution = await ctx.executor.run(PLAYBOOK, {
      caseDir: ctx.caseDir,
      name: "playbook-1",
      namespace: "shop",
    });
    const r: MethodResult = {
      attempts: [{ index: 1, playbook: PLAYBOOK, execution, problems: [], probeRounds: 0 }],
      conversation: [],
      usage: {},
    };
    const t = trajectory("restart-root-cause", ctx, r, "oracle");
    expect(sources(t)).toEqual(["user", "system"]);
    expect(JSON.parse(t.steps[0].message)).toMatchObject({ service: "cart" });
    expect(t.steps[1].message).toBe("The Execution agent ran the playbook of attempt 1.");
  });

  it("malformed arguments, an unanswered tool message and a provider failure still make a valid trajectory", async () => {
    const { ctx } = runnerSetup([
      { toolCalls: [{ name: "probe_system", arguments: "{not json" }] },
      { error: "overloaded" },
    ]);
    const r = await new ThinkRemed().remediate(ctx);
    r.conversation.push({ role: "tool", toolCallId: "nobody", name: "probe_system", content: "stray" });
    const t = trajectory("ThinkRemed", ctx, r);
    const turn = t.steps.find((s) => s.source === "agent");
    expect(turn?.tool_calls?.[0].arguments).toEqual({});
    expect(turn?.extra).toEqual({
      unparsed_arguments: { [turn?.tool_calls?.[0].tool_call_id ?? ""]: "{not json" },
    });
    expect(t.steps.at(-1)).toMatchObject({
      source: "system",
      observation: { results: [{ content: "stray" }] },
    });
  });

  it("the check fails a trajectory that breaks ATIF", () => {
    const good = { schema_version: "ATIF-v1.4", session_id: "s", agent: { name: "a", version: "1" } };
    const user = { step_id: 1, source: "user", message: "hi" };
    expect(atifProblems({ ...good, steps: [user] })).toEqual([]);
    expect(atifProblems({ ...good, steps: [] })).not.toEqual([]);
    expect(atifProblems({ ...good, steps: [{ ...user, tool_calls: [] }] })).not.toEqual([]);
    expect(atifProblems({ ...good, steps: [{ ...user, timestamp: "yesterday" }] })).not.toEqual([]);
    expect(atifProblems({ ...good, steps: [{ ...user, colour: "red" }] })).not.toEqual([]);
    expect(atifProblems({ ...good, steps: [{ ...user, step_id: 2 }] })).toEqual([
      "/steps/0 has step_id 2, not 1",
    ]);
    const agent = {
      step_id: 1,
      source: "agent",
      message: "",
      tool_calls: [{ tool_call_id: "a", function_name: "f", arguments: {} }],
      observation: { results: [{ source_call_id: "b", content: "x" }] },
    };
    expect(atifProblems({ ...good, steps: [agent] })).toEqual([
      "/steps/0 answers b, no tool call of its step",
    ]);
  });
});
