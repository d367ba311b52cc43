// A conversation as ATIF steps: system and user messages as such; each assistant message as an
// agent step with its tool calls, its metrics (the turn's usage, where the runner stamped it) and,
// as its observation, the tool messages that answer its calls (probe output, MCP results). A tool
// message that answers no call of an earlier agent step becomes a system step's observation.
// Steps the conversation did not stamp with a time take the previous step's (the case's start
// for the first).
import type { ChatMessage, ToolCall, Usage } from "../llm/types.js";
import type { AtifMetrics, AtifStep, AtifToolCall, Json } from "./atif.js";

/** A step before numbering: step_id is given once every step is in place. */
export type Draft = Omit<AtifStep, "step_id">;

function args(call: ToolCall): { value: Json; unparsed?: string } {
  try {
    const v: unknown = JSON.parse(call.arguments || "{}");
    if (v && typeof v === "object" && !Array.isArray(v)) return { value: v as Json };
  } catch {
    // the model's own malformed JSON: kept as written in the step's extra
  }
  return { value: {}, unparsed: call.arguments };
}

export function metricsOf(u: Usage): AtifMetrics {
  const extra: Json = {
    ...(u.reasoningTokens ? { reasoning_tokens: u.reasoningTokens } : {}),
    ...(u.cacheWriteTokens ? { cache_creation_input_tokens: u.cacheWriteTokens } : {}),
    ...(u.estimated ? { estimated: true } : {}),
  };
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    ...(u.cachedTokens !== undefined ? { cached_tokens: u.cachedTokens } : {}),
    ...(u.costUsd !== undefined ? { cost_usd: u.costUsd } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

function agentStep(m: ChatMessage, n: number, modelName: string | undefined): Draft {
  const unparsed: Record<string, string> = {};
  const calls: AtifToolCall[] = (m.toolCalls ?? []).map((c, k) => {
    const a = args(c);
    const id = c.id || `call-${n}-${k + 1}`;
    if (a.unparsed !== undefined) unparsed[id] = a.unparsed;
    return { tool_call_id: id, function_name: c.name || "?", arguments: a.value };
  });
  return {
    source: "agent",
    ...(modelName ? { model_name: modelName } : {}),
    message: m.content,
    ...(calls.length ? { tool_calls: calls } : {}),
    ...(m.usage ? { metrics: metricsOf(m.usage) } : {}),
    ...(Object.keys(unparsed).length ? { extra: { unparsed_arguments: unparsed } } : {}),
  };
}

/** The step (searching back) whose tool calls include `id`. */
function caller(steps: Draft[], id: string | undefined): Draft | undefined {
  if (!id) return undefined;
  for (let i = steps.length - 1; i >= 0; i--)
    if (steps[i].tool_calls?.some((c) => c.tool_call_id === id)) return steps[i];
  return undefined;
}

export function conversationSteps(
  conversation: ChatMessage[],
  start: string,
  modelName: string | undefined,
): Draft[] {
  const steps: Draft[] = [];
  let clock = start;
  for (const m of conversation) {
    if (m.at) clock = m.at;
    if (m.role === "tool") {
      const at = caller(steps, m.toolCallId);
      if (at) {
        at.observation ??= { results: [] };
        at.observation.results.push({ source_call_id: m.toolCallId, content: m.content });
        continue;
      }
      steps.push({
        source: "system",
        timestamp: clock,
        message: `The answer of ${m.name ?? "a tool"} to a call the conversation does not hold.`,
        observation: { results: [{ content: m.content }] },
        ...(m.name ? { extra: { tool: m.name } } : {}),
      });
      continue;
    }
    if (m.role === "assistant")
      steps.push({ timestamp: clock, ...agentStep(m, steps.length + 1, modelName) });
    else steps.push({ source: m.role, timestamp: clock, message: m.content });
  }
  return steps;
}
