// The runbook baseline: a built-in "model" that writes, whatever the report says, the playbook of
// blind steps an on-call script takes (models/runbook/runbook.py: undo the newest rollout and
// every rollout not Ready, scale Deployments at 0 to 1, delete every NetworkPolicy, point
// Services without endpoints at app=<name>, restart what is not Ready). It reads the report's
// namespace and nothing else, so it runs at every report level; its score on a tier says how
// much of the tier a script with no model repairs (docs/baselines.md).
import { stringify } from "yaml";
import { reportIn } from "../../diagnosis/report.js";
import { estimateTokens, type Model, type ModelRequest, type ModelResponse } from "../types.js";
import { scriptTask } from "./script-task.js";

export function runbookPlaybook(namespace: string): string {
  const task = scriptTask(
    "Run the on-call runbook over the namespace",
    "runbook",
    ["runbook.py"],
    `python3 "$d/runbook.py" ${namespace}`,
  );
  return stringify([{ name: "On-call runbook", hosts: "localhost", gather_facts: false, tasks: [task] }]);
}

export class RunbookModel implements Model {
  readonly id = "runbook";

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const report = reportIn(req.messages);
    const input = estimateTokens(req.messages.map((m) => m.content).join("\n"));
    if (!report || !req.tools.some((t) => t.name === "print_playbook"))
      return {
        message: { role: "assistant", content: "No further action." },
        usage: { inputTokens: input, outputTokens: 3 },
      };
    const args = JSON.stringify({ playbook: runbookPlaybook(report.namespace) });
    return {
      message: {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "runbook-1", name: "print_playbook", arguments: args }],
      },
      usage: { inputTokens: input, outputTokens: estimateTokens(args) },
    };
  }
}
