// The MCP server's tools over one case, driven by the SDK's Client through its in-memory
// transport: get_report says what the report of the run's level holds, and submit is the agent's
// last act (kubectl and run_playbook refuse after it, and the refusals are in the call log); a
// call the client cancels is recorded as abandoned and its tool told to stop.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import type { ExecutionResult } from "../../src/ansible/executor.js";
import { REPORT_SCOPE } from "../../src/diagnosis/levels.js";
import { CallLog, createMcpServer, type McpCase, type Submission } from "../../src/mcp/index.js";
import { probeContract, probeLimits } from "../../src/probe/index.js";

/** A case whose tools answer from memory and count what they ran. */
function memoryCase(scope: string) {
  const ran: string[] = [];
  let submitted: Submission | undefined;
  const c: McpCase = {
    report: "## Diagnosis report\n- Namespace: shop\n",
    scope,
    readRules: probeContract(probeLimits({})),
    namespace: "shop",
    probe: async (command) => {
      ran.push(command);
      return `$ ${command}\n(no output)\n`;
    },
    kubectl: async (argv) => {
      ran.push(argv.join(" "));
      return "done\n";
    },
    runPlaybook: async (playbook, signal) => {
      ran.push(playbook);
      // "wait" runs until the call is abandoned, as a long playbook does
      if (playbook === "wait")
        await new Promise((res) => signal?.addEventListener("abort", () => res(ran.push("stopped"))));
      return { ok: true, problems: [], tasks: [], warnings: [] } as unknown as ExecutionResult;
    },
    submit: (s) => {
      if (submitted) return false;
      submitted = s;
      return true;
    },
    submitted: "submitted: stop here.",
    submission: () => submitted,
  };
  return { c, ran };
}

async function connect(c: McpCase, log: CallLog) {
  const [client, server] = InMemoryTransport.createLinkedPair();
  await createMcpServer(c, log, "test").connect(server);
  const agent = new Client({ name: "test-agent", version: "1.0.0" });
  await agent.connect(client);
  return agent;
}

const text = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as { type: string; text: string }[]).map((x) => x.text).join("");

describe("the MCP server's tools", () => {
  it("describe the report as its level holds it", async () => {
    for (const level of ["full", "symptom"] as const) {
      const agent = await connect(memoryCase(REPORT_SCOPE[level]).c, new CallLog());
      const { tools } = await agent.listTools();
      const get = tools.find((t) => t.name === "get_report");
      expect(get?.description).toBe(`The diagnosis report of the incident. ${REPORT_SCOPE[level]}`);
      // kubectl's description states the reads' rules and limits as the probe's contract does
      const kubectl = tools.find((t) => t.name === "kubectl")?.description ?? "";
      for (const rule of probeContract(probeLimits({})).split("\n").slice(1)) expect(kubectl).toContain(rule);
      await agent.close();
    }
    expect(REPORT_SCOPE.symptom).toMatch(/names neither the faulty service nor the kind of failure/);
  });

  it("refuse to act once the agent has submitted, and keep the first submission", async () => {
    const { c, ran } = memoryCase(REPORT_SCOPE.full);
    const log = new CallLog();
    const agent = await connect(c, log);
    expect(
      text(await agent.callTool({ name: "kubectl", arguments: { command: "kubectl get pods" } })),
    ).toMatch(/get pods/);
    expect(
      text(await agent.callTool({ name: "submit", arguments: { service: "cart", cause: "bad tag" } })),
    ).toMatch(/^submitted/);
    const late = [
      await agent.callTool({
        name: "kubectl",
        arguments: { command: "kubectl rollout restart deploy/cart" },
      }),
      await agent.callTool({ name: "run_playbook", arguments: { playbook: "- hosts: localhost\n" } }),
    ];
    for (const r of late) expect(text(r)).toMatch(/^refused: you already called submit/);
    expect(text(await agent.callTool({ name: "submit", arguments: { service: "other" } }))).toMatch(
      /^already submitted/,
    );
    // the reads ran, the late writes did not; the log holds every call, refusals included
    expect(ran).toEqual(["kubectl get pods"]);
    expect(c.submission()).toEqual({ service: "cart", cause: "bad tag" });
    expect(log.calls.map((x) => x.tool)).toEqual(["kubectl", "submit", "kubectl", "run_playbook", "submit"]);
    // a report is still readable after submit
    expect(text(await agent.callTool({ name: "get_report", arguments: {} }))).toMatch(/Namespace: shop/);
    await agent.close();
  });

  it("record a call the client cancelled as abandoned, and stop its tool", async () => {
    const { c, ran } = memoryCase(REPORT_SCOPE.full);
    const log = new CallLog();
    const agent = await connect(c, log);
    const cancel = new AbortController();
    const call = agent.callTool({ name: "run_playbook", arguments: { playbook: "wait" } }, undefined, {
      signal: cancel.signal,
    });
    while (!ran.includes("wait")) await new Promise((r) => setTimeout(r, 5));
    // the SDK's client sends notifications/cancelled for the request
    cancel.abort("the user gave up");
    await expect(call).rejects.toThrow(/gave up/);
    while (!log.calls.length || !ran.includes("stopped")) await new Promise((r) => setTimeout(r, 5));
    expect(log.calls).toMatchObject([{ tool: "run_playbook", abandoned: true, result: "" }]);
    expect(ran).toEqual(["wait", "stopped"]);
    await agent.close();
  });
});
