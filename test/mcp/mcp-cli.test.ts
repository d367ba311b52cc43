// Through the CLI on the embedded cluster: `--remediate-method mcp:...`
// serves the case's MCP server to an agent in the sandbox. The example agent (the SDK's Client)
// reads the report, probes, runs a playbook and submits, and the case succeeds, every call in the
// case's conversation; a writer agent's kubectl writes are allowed or forbidden by RBAC, and it
// sees neither the runner's environment nor the host's files.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/llm/types.js";
import type { AtifTrajectory } from "../../src/trajectory/index.js";
import { checkBuilt, cli, ROOT, readCases, readJson, tmp, write } from "../cli/cli-helpers.js";
import { atifProblems } from "../trajectory/atif-check.js";

beforeAll(checkBuilt);

const POD_FAIL = "cases:\n  - {failure: pod-fail, target: time-service}\n";

async function runMcp(command: string) {
  const dir = tmp("mr-mcp-");
  const exp = write(dir, "exp.yaml", POD_FAIL);
  const args = ["run", "--env", "simple-micro", "--model", "noop", "--remediate-method", `mcp:${command}`];
  args.push(
    "--experiment-path",
    exp,
    "--save-path",
    dir,
    "--run-name",
    "mcp",
    "--speed",
    "600",
    "--settle",
    "5",
  );
  const r = await cli(args, { timeout: 400_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  const caseDir = join(dir, "mcp", "case-001");
  return {
    cases: readCases(join(dir, "mcp")),
    caseDir,
    conv: readJson<Conversation>(join(caseDir, "conversation.json")),
  };
}

interface Conversation {
  conversation: ChatMessage[];
}

const toolNames = (conv: Conversation) =>
  conv.conversation.flatMap((m) => (m.toolCalls ?? []).map((c) => c.name));

describe("mcp: agents", () => {
  it("the example MCP agent reads the report, probes, runs a playbook and submits; the case succeeds", async () => {
    const { cases, caseDir, conv } = await runMcp("node examples/mcp-agent.mjs");
    expect(cases[0]).toMatchObject({ status: "success", method: "mcp:node examples/mcp-agent.mjs" });
    expect(cases[0].errors).toEqual([]);
    expect(toolNames(conv)).toEqual(["get_report", "kubectl", "run_playbook", "submit"]);
    // each call's answer follows it, as a probe's does
    const answers = conv.conversation.filter((m) => m.role === "tool").map((m) => m.content);
    expect(answers[0]).toMatch(/^## Diagnosis report/);
    expect(answers[1]).toMatch(
      /^\$ kubectl get pods -l app=time-service -o wide -n simple-micro|^\$ kubectl .*get pods/,
    );
    expect(JSON.parse(answers[2])).toMatchObject({
      ok: true,
      tasks: [{ status: "changed" }, { status: "changed" }],
    });
    expect(readJson(join(caseDir, "submission.json"))).toEqual({
      service: "time-service",
      cause: "its pod was failing; restarted the Deployment",
    });
    // the diagnosis given with submit is scored as submit_diagnosis's is: by the service it names
    expect(cases[0].diagnosis).toEqual({
      service: "time-service",
      cause: "its pod was failing; restarted the Deployment",
      correct: true,
    });
    expect(readFileSync(join(caseDir, "playbook-1.yml"), "utf8")).toMatch(
      /rollout restart deployment\/time-service/,
    );
    // the three configuration formats name one URL, which the agent was given
    const url = readJson<{ url: string }>(join(caseDir, "mcp.json")).url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(readJson(join(caseDir, ".mcp.json"))).toEqual({
      mcpServers: { cluster: { type: "http", url } },
    });
    expect(readFileSync(join(caseDir, ".codex", "config.toml"), "utf8")).toBe(
      `[mcp_servers.cluster]\nurl = "${url}"\n`,
    );
    // the playbook's API requests are in the case's audit log beside the agent's own
    expect(readFileSync(join(caseDir, "api-audit.jsonl"), "utf8")).toMatch(/"PATCH"/);
    // its trajectory is valid ATIF: the agent's input, each MCP call an agent step with its
    // answer, the executor's run of the playbook; no model spoke through the harness
    const t = readJson<AtifTrajectory>(join(caseDir, "trajectory.json"));
    expect(atifProblems(t)).toEqual([]);
    expect(t.agent).toMatchObject({
      name: "mcp:node examples/mcp-agent.mjs",
      extra: { harness_model: "noop" },
    });
    expect(t.agent.model_name).toBeUndefined();
    expect(t.steps.flatMap((s) => (s.tool_calls ?? []).map((c) => c.function_name))).toEqual([
      "get_report",
      "kubectl",
      "run_playbook",
      "submit",
    ]);
    expect(t.extra).toMatchObject({ microremed: { status: "success", failure: "pod-fail" } });
  }, 300_000);

  it("kubectl writes through MCP are what RBAC allows; the agent sees no key and no host file", async () => {
    process.env.MICROREMED_TEST_API_KEY = "sk-test-never-inside";
    const hostFile = join(ROOT, "package.json");
    const { cases, caseDir } = await runMcp("node test/mcp/fixtures/writer-agent.mjs");
    delete process.env.MICROREMED_TEST_API_KEY;
    const [seen, after] = readFileSync(join(caseDir, "agent.stderr"), "utf8")
      .trim()
      .split("\n")
      .slice(-2)
      .map((l) => JSON.parse(l));
    expect(seen.restart).toMatch(/deployment.apps\/time-service restarted/);
    expect(seen.otherNamespace).toMatch(/Forbidden/);
    expect(seen.chaos).toMatch(/Forbidden/);
    expect(seen.env).not.toContain("MICROREMED_TEST_API_KEY");
    expect(seen.env).toContain("MCP_SERVER_URL");
    expect(seen.hostPackageJson).toBe(false);
    expect(seen.nodeModules).toBe(true);
    expect(existsSync(hostFile)).toBe(true);
    // submit was its last act: the scale to zero after it was refused, not run
    expect(after.afterSubmit).toMatch(/^refused: you already called submit/);
    // the restart fixed the pod; no diagnosis was submitted
    expect(cases[0]).toMatchObject({ status: "success" });
    expect(cases[0].diagnosis).toBeUndefined();
    expect(readJson(join(caseDir, "submission.json"))).toEqual({});
  }, 300_000);
});
