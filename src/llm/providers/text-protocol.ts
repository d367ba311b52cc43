// Tools for models without native tool calling: the reference's text protocol. The tools are
// described in the system prompt, earlier tool calls and results are written back as text, and
// the reply's `Action: <tool>` / `Action Input: <json>` becomes a normal tool call, so methods
// see the same ChatMessage whichever way the model was driven.
import type { ChatMessage, ToolSchema } from "../types.js";

export function describeTools(tools: ToolSchema[]): string {
  const each = tools.map(
    (t) => `- ${t.name}: ${t.description}\n  Arguments (JSON Schema): ${JSON.stringify(t.parameters)}`,
  );
  return [
    "You can use these tools:",
    ...each,
    "",
    "To use a tool, end your reply with exactly these two lines, the arguments as one JSON object:",
    "Action: <tool name>",
    "Action Input: <JSON arguments>",
    'Use one tool per reply. The tool\'s result comes back to you as "Observation: ...".',
  ].join("\n");
}

/** The conversation as a model without tools can read it. */
export function toTextProtocol(messages: ChatMessage[], tools: ToolSchema[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const toolText = describeTools(tools);
  let described = false;
  for (const m of messages) {
    if (m.role === "system" && !described) {
      out.push({ role: "system", content: `${m.content}\n\n${toolText}` });
      described = true;
    } else if (m.role === "assistant" && m.toolCalls?.length) {
      const calls = m.toolCalls.map((c) => `Action: ${c.name}\nAction Input: ${c.arguments}`).join("\n");
      out.push({
        role: "assistant",
        content: m.content.includes("Action:") ? m.content : [m.content, calls].filter(Boolean).join("\n"),
      });
    } else if (m.role === "tool") {
      out.push({ role: "user", content: `Observation${m.name ? ` (${m.name})` : ""}: ${m.content}` });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  if (!described) out.unshift({ role: "system", content: toolText });
  return out;
}

/** The reference's text protocol for models without tools: `Action: name` / `Action Input: {...}`. */
export function textToolCall(content: string): { name: string; arguments: string } | undefined {
  const m = content.match(/Action:\s*([\w-]+)\s*\n\s*Action Input:\s*([\s\S]*)$/);
  if (!m) return undefined;
  return { name: m[1], arguments: m[2].trim().replace(/^```(?:json)?\s*|\s*```$/g, "") };
}

/** The reply with its text-protocol call turned into toolCalls (the text stays as written). */
export function parseTextReply(reply: ChatMessage, tools: ToolSchema[], callId: string): ChatMessage {
  if (reply.toolCalls?.length) return reply;
  const call = textToolCall(reply.content);
  // A name that is not one of the tools stays text: the method explains what went wrong.
  if (!call || !tools.some((t) => t.name === call.name)) return reply;
  return { ...reply, toolCalls: [{ id: callId, name: call.name, arguments: call.arguments }] };
}
