// Reading the Coordinator's tool calls: native tool calls, or the reference's text protocol
// (Action: / Action Input:) for models without tools. Arguments the model got wrong become a
// `problem` the model is told about, never an exception.

import { textToolCall } from "../../llm/providers/text-protocol.js";
import type { ChatMessage, ToolCall } from "../../llm/types.js";
import { argumentsObject } from "../answer.js";

/** A call to answer: native ones carry an id; text-protocol ones are answered as a user turn. */
export interface Call {
  id?: string;
  name: string;
  arguments: string;
}

export function callsOf(msg: ChatMessage): Call[] {
  if (msg.toolCalls?.length)
    return msg.toolCalls.map((c: ToolCall) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  const text = textToolCall(msg.content);
  return text ? [text] : [];
}

export function commandArg(raw: string): { command: string } | { problem: string } {
  const example = '{"command": "kubectl get pods"}';
  const args = argumentsObject(raw, example);
  if ("problem" in args) return { problem: `probe_system: ${args.problem}` };
  // `cmds` is the reference's name for it (a string, or a list of commands)
  const v = args.command ?? args.cmds;
  const command = Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join("; ") : v;
  if (typeof command !== "string" || !command.trim())
    return { problem: `probe_system: "command" must be a non-empty string, like ${example}` };
  return { command };
}

/** The answer to a call, in the form its protocol expects. */
export function answer(call: Call, content: string): ChatMessage {
  if (call.id) return { role: "tool", toolCallId: call.id, name: call.name, content };
  return { role: "user", content: `Observation: ${content}` };
}
