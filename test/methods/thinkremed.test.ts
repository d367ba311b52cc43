import { describe, expect, it } from "vitest";
import type { ChatMessage, ModelRequest } from "../../src/llm/types.js";
import { resolveMethod } from "../../src/methods/registry.js";
import { ThinkRemed } from "../../src/methods/thinkremed/index.js";
import { PLAYBOOK, print, probe, recording, setup } from "./thinkremed-helpers.js";

const fail = (reason: string) => ({ pass: false, reason, measurements: {} });
const pass = { pass: true, reason: "cart is healthy", measurements: {} };
const toolAnswers = (c: ChatMessage[]) => c.filter((m) => m.role === "tool").map((m) => m.content);
const userTurns = (c: ChatMessage[]) => c.filter((m) => m.role === "user").map((m) => m.content);

describe("ThinkRemed", () => {
  it("is registered under its reference name", async () => {
    expect((await resolveMethod("ThinkRemed")).name).toBe("ThinkRemed");
    expect(((await resolveMethod("thinkremed")) as ThinkRemed).probeLimits).toEqual({
      timeoutSeconds: 10,
      maxOutput: 8000,
      maxCommands: 10,
    });
  });

  it("probes, prints a playbook, executes and verifies it: success on the first attempt", async () => {
    const { ctx, executor, commands, verifications } = setup([
      probe("kubectl get pods; kubectl top pods"),
      print(),
    ]);
    const r = await new ThinkRemed().remediate(ctx);
    expect(r.error).toBeUndefined();
    expect(r.attempts).toHaveLength(1);
    expect(r.attempts[0]).toMatchObject({
      index: 1,
      probeRounds: 1,
      playbook: PLAYBOOK,
      problems: [],
      verdict: { pass: true },
    });
    expect(commands).toEqual(["kubectl get pods; kubectl top pods"]);
    expect(executor.playbooks).toEqual([PLAYBOOK]);
    expect(verifications()).toBe(1);
    expect(r.usage).toEqual({
      coordinator: { inputTokens: 300, outputTokens: 60, cachedTokens: 0, reasoningTokens: 0, costUsd: 0 },
    });
    // the probe's observation went back to the Coordinator as the answer to its call
    const answer = r.conversation.find((m) => m.role === "tool" && m.name === "probe_system");
    expect(answer).toMatchObject({
      toolCallId: "scripted-1-1",
      content: "observed: kubectl get pods; kubectl top pods",
    });
    expect(r.conversation[0].content).toContain("namespace shop");
    expect(r.conversation[1].content).toContain("Root-cause service: cart");
  });

  it("reflects on a failed verification with the execution output and the verdict, then succeeds", async () => {
    const output = `${"TASK [noise] ok\n".repeat(400)}TASK [Restart cart] fatal: deployments.apps "kart" not found\nPLAY RECAP failed=1`;
    const { ctx, executor } = setup(
      [print("- hosts: localhost\n  tasks: []\n"), probe("kubectl describe deploy cart"), print()],
      {
        results: [{ ok: false, exitCode: 2, output }],
        verdicts: [fail("cart still uses 98% CPU (limit 500m)"), pass],
      },
    );
    const r = await new ThinkRemed().remediate(ctx);
    expect(r.attempts.map((a) => [a.index, a.verdict?.pass, a.probeRounds])).toEqual([
      [1, false, 0],
      [2, true, 1],
    ]);
    expect(executor.playbooks).toHaveLength(2);
    const reflection = userTurns(r.conversation).find((m) => m.includes("has not been remediated"));
    expect(reflection).toContain("attempt 1 of 2");
    expect(reflection).toContain("ansible-playbook failed (exit code 2)");
    expect(reflection).toContain('fatal: deployments.apps "kart" not found');
    expect(reflection).toContain("PLAY RECAP failed=1");
    expect(reflection).toContain("earlier characters left out");
    expect(reflection).toContain("Verification: failed: cart still uses 98% CPU (limit 500m)");
  });

  it("stops after T_max attempts", async () => {
    const { ctx, executor } = setup([print(), print(), print()], {
      verdicts: [fail("still saturated")],
      maxAttempts: 2,
    });
    const r = await new ThinkRemed().remediate(ctx);
    expect(r.error).toBeUndefined();
    expect(r.attempts.map((a) => a.verdict?.pass)).toEqual([false, false]);
    expect(executor.playbooks).toHaveLength(2);
    // one reflection between the two attempts, none after the last
    expect(userTurns(r.conversation).filter((m) => m.includes("has not been remediated"))).toHaveLength(1);

    const three = setup([print(), print(), print()], { verdicts: [fail("still saturated")], maxAttempts: 3 });
    expect((await new ThinkRemed().remediate(three.ctx)).attempts).toHaveLength(3);
  });

  it("answers malformed tool arguments with what was wrong, counting each as a round", async () => {
    const { ctx, commands } = setup([
      { toolCalls: [{ name: "probe_system", arguments: '{"command": "kubectl get' }] },
      { toolCalls: [{ name: "probe_system", arguments: { cmd: "kubectl get pods" } }] },
      { toolCalls: [{ name: "print_playbook", arguments: { playbook: 5 } }] },
      { toolCalls: [{ name: "restart_everything", arguments: {} }] },
      print(),
    ]);
    const r = await new ThinkRemed().remediate(ctx);
    expect(r.attempts).toHaveLength(1);
    expect(r.attempts[0]).toMatchObject({ probeRounds: 4, verdict: { pass: true } });
    expect(commands).toEqual([]);
    const answers = toolAnswers(r.conversation);
    expect(answers[0]).toMatch(
      /^probe_system: the arguments are not valid JSON .*; write a JSON object like \{"command": "kubectl get pods"\}/,
    );
    expect(answers[1]).toContain('probe_system: "command" must be a non-empty string');
    expect(answers[2]).toContain('print_playbook: "playbook" must be the playbook\'s YAML text');
    expect(answers[3]).toContain(
      'There is no tool named "restart_everything"; use probe_system or print_playbook or submit_diagnosis.',
    );
  });

  it("reminds a model that answers in plain text once, then ends the attempt with a problem", async () => {
    const { ctx, executor } = setup([
      { content: "Restart the cart service." },
      { content: "Really, restart it." },
      { content: "Restart it." },
      { content: "I said restart." },
    ]);
    const r = await new ThinkRemed().remediate(ctx);
    expect(r.attempts).toHaveLength(2);
    for (const a of r.attempts) {
      expect(a.problems).toEqual([
        "the Coordinator answered in plain text again after a reminder, without calling a tool",
      ]);
      expect(a.execution).toBeUndefined();
    }
    expect(executor.playbooks).toEqual([]);
    const users = userTurns(r.conversation);
    expect(users.filter((m) => m.startsWith("You answered without calling a tool"))).toHaveLength(2);
    expect(users.find((m) => m.includes("has not been remediated"))).toContain(
      "Execution: no playbook was submitted",
    );
  });

  it("ends with the provider's failure recorded, keeping what was done and spent", async () => {
    const { ctx } = setup([
      probe("kubectl get pods"),
      { error: "openai: 429 Too Many Requests after 5 retries" },
    ]);
    const r = await new ThinkRemed().remediate(ctx);
    // a provider failure is an error of the run, with its reason (the scripted default: outage)
    expect(r.error).toEqual({
      reason: "outage",
      message: "error E_MODEL: openai: 429 Too Many Requests after 5 retries",
    });
    expect(r.attempts).toEqual([{ index: 1, problems: [], probeRounds: 1 }]);
    expect(r.usage.coordinator).toMatchObject({ inputTokens: 100, outputTokens: 10 });
  });

  it("bounds probing per attempt: past the budget the probe says to print the playbook", async () => {
    const probes = Array.from({ length: 6 }, (_, k) => probe(`kubectl get pods ${k}`));
    const { ctx, commands } = setup([...probes, print()]);
    const r = await new ThinkRemed().remediate(ctx);
    expect(commands).toHaveLength(5);
    expect(r.attempts[0].probeRounds).toBe(5);
    expect(toolAnswers(r.conversation)[5]).toContain("The probe budget of this attempt is spent (5 probes)");
    expect(r.attempts[0].verdict?.pass).toBe(true);
  });

  it("ends an attempt that never prints a playbook after the turn limit", async () => {
    const { ctx } = setup(
      Array.from({ length: 20 }, () => probe("kubectl get pods")),
      { maxAttempts: 1 },
    );
    const r = await new ThinkRemed().remediate(ctx);
    expect(r.attempts[0].problems).toEqual(["no playbook after 8 Coordinator turns"]);
  });

  it("understands the reference's text protocol and answers it as an observation", async () => {
    const { ctx, commands } = setup([
      { content: 'Action: probe_system\nAction Input: {"command": "kubectl get pods"}' },
      print(),
    ]);
    const r = await new ThinkRemed().remediate(ctx);
    expect(commands).toEqual(["kubectl get pods"]);
    expect(userTurns(r.conversation)).toContain("Observation: observed: kubectl get pods");
  });

  it("tells the model what its identity may do and every rule and limit of the probe", async () => {
    const { ctx } = setup([print()]);
    const seen: ModelRequest[] = [];
    ctx.model = recording(ctx.model, seen);
    await new ThinkRemed().remediate(ctx);
    const system = seen[0].messages[0].content;
    expect(system).toContain("What you may do: You act as a ServiceAccount of the namespace shop");
    // nothing tells it a fault was injected: Chaos Mesh is not named
    expect(system).not.toContain("Chaos Mesh");
    const probeTool = seen[0].tools.find((t) => t.name === "probe_system");
    // the limits the method declares (methods/ThinkRemed.yaml), stated where the model reads them
    expect(probeTool?.description).toContain("Each command is stopped after 10 s");
    expect(probeTool?.description).toContain("at most 8000 characters");
    expect(probeTool?.description).toContain("at most 10 per call");
    expect(probeTool?.description).toContain("2>&1");
    expect(probeTool?.description).not.toContain("{{");
  });

  it("does not offer probing when the context has no sandbox", async () => {
    const { ctx } = setup(
      [{ toolCalls: [{ name: "probe_system", arguments: { command: "kubectl get pods" } }] }, print()],
      { noProbe: true },
    );
    const r = await new ThinkRemed().remediate(ctx);
    expect(toolAnswers(r.conversation)[0]).toContain("Probing is not available in this run");
    expect(r.attempts[0].verdict?.pass).toBe(true);
  });

  it("skips verification when the playbook was rejected before running, and says so", async () => {
    const { ctx, verifications } = setup([print(), print()], {
      results: [{ accepted: false, ok: false, problems: ["the playbook touches namespace kube-system"] }],
    });
    const r = await new ThinkRemed().remediate(ctx);
    expect(verifications()).toBe(1);
    expect(r.attempts[0].problems).toEqual(["the playbook touches namespace kube-system"]);
    const reflection = userTurns(r.conversation).find((m) => m.includes("has not been remediated"));
    expect(reflection).toContain("rejected before it ran: the playbook touches namespace kube-system");
    expect(reflection).toContain("Verification: not run");
  });
});
