// The diagnosis an agent states, optional: the submit_diagnosis tool, with the service
// it found at fault and the cause in one line, offered by both methods beside print_playbook.
// An mcp: agent states it with the MCP server's submit, whose first call counts (the server refuses
// the others). Read from the conversation after the method ran (the last submit_diagnosis counts),
// and scored by fact: whether the service named is a fault's service. Never by an LLM judge.
import type { ChatMessage } from "../llm/types.js";
import { argumentsObject } from "./answer.js";

export const SUBMIT_DIAGNOSIS = "submit_diagnosis";
/** The MCP server's last tool (src/mcp/tools.ts), whose optional arguments are the same two. */
const MCP_SUBMIT = "submit";

export interface StatedDiagnosis {
  service: string;
  cause: string;
  /** The service named is one of the faults' services. */
  correct: boolean;
}

/** The arguments of one call, or what is wrong with them (the model is told). */
export function diagnosisArgument(raw: string): { service: string; cause: string } | { problem: string } {
  const args = argumentsObject(raw, '{"service": "cart", "cause": "its new image does not start"}');
  if ("problem" in args) return { problem: `${SUBMIT_DIAGNOSIS}: ${args.problem}` };
  if (typeof args.service !== "string" || !args.service.trim())
    return { problem: `${SUBMIT_DIAGNOSIS}: "service" must name the service at fault` };
  return { service: args.service.trim(), cause: typeof args.cause === "string" ? args.cause.trim() : "" };
}

/** The last valid submit_diagnosis of the conversation, scored against the faults' services. */
export function statedDiagnosis(
  conversation: ChatMessage[],
  services: string[],
): StatedDiagnosis | undefined {
  let last: { service: string; cause: string } | undefined;
  let mcpSubmitted = false;
  for (const m of conversation)
    for (const c of m.toolCalls ?? []) {
      if (c.name === MCP_SUBMIT) {
        if (mcpSubmitted) continue;
        mcpSubmitted = true;
      } else if (c.name !== SUBMIT_DIAGNOSIS) continue;
      const a = diagnosisArgument(c.arguments);
      if (!("problem" in a)) last = a;
    }
  if (!last) return undefined;
  const named = last.service.toLowerCase();
  return { ...last, correct: services.some((s) => s.toLowerCase() === named) };
}
