// The runbook baseline's playbook (src/llm/builtin/runbook.ts): whatever the report says, the
// same blind steps over its namespace; it reads no service name and no failure, so it runs at
// every report level. test/cli/runbook.test.ts runs it through the CLI (long lane).
import { describe, expect, it } from "vitest";
import { resolveModel } from "../../src/llm/registry.js";

describe("the runbook baseline", () => {
  it("reads the namespace of a report and no service name", async () => {
    const report = [
      "## Diagnosis report",
      "- System: simple-micro",
      "- Namespace: simple-micro",
      "- Root-cause service: hello-service",
      "- Failure category: Pod failure (pod-fail; pod)",
      "",
      "## Runtime context",
      "pods: 2",
      "",
      "## Ansible inventory (inventory.ini)",
      "[local]\nlocalhost ansible_connection=local",
    ].join("\n");
    const r = await resolveModel("runbook").generate({
      messages: [{ role: "user", content: report }],
      tools: [{ name: "print_playbook", description: "", parameters: {} }],
      role: "generator",
    });
    const playbook = JSON.parse(r.message.toolCalls?.[0]?.arguments ?? "{}").playbook as string;
    expect(playbook).toContain('runbook.py" simple-micro');
    expect(playbook).not.toContain("hello-service");
    expect(playbook).not.toContain("pod-fail");
  });

  it("answers a probe round with no action, as the oracle does", async () => {
    const r = await resolveModel("runbook").generate({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      role: "probe",
    });
    expect(r.message.toolCalls ?? []).toEqual([]);
  });
});
