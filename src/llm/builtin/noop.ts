// The noop model: a valid playbook that changes nothing. Any run with it must score 0%.
import { stringify } from "yaml";
import { estimateTokens, type Model, type ModelRequest, type ModelResponse } from "../types.js";

export const NOOP_PLAYBOOK = stringify([
  {
    name: "Do nothing",
    hosts: "localhost",
    gather_facts: false,
    tasks: [{ name: "Report that nothing is changed", "ansible.builtin.debug": { msg: "noop: no change" } }],
  },
]);

export class NoopModel implements Model {
  readonly id = "noop";

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const input = estimateTokens(req.messages.map((m) => m.content).join("\n"));
    if (!req.tools.some((t) => t.name === "print_playbook"))
      return {
        message: { role: "assistant", content: "Nothing to do." },
        usage: { inputTokens: input, outputTokens: 3 },
      };
    const args = JSON.stringify({ playbook: NOOP_PLAYBOOK });
    return {
      message: {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "noop-1", name: "print_playbook", arguments: args }],
      },
      usage: { inputTokens: input, outputTokens: estimateTokens(args) },
    };
  }
}
