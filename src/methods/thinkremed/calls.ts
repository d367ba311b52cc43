// Reading the Coordinator's tool calls: native tool calls, or the reference's text protocol
// (Action: / Action Input:) for models without tools. Arguments the model got wrong become a
// `problem` the model is told about, never an exception.
import type { ChatMessage, ToolCall } from "../../models/types.js";
import { textToolCall } from "../playbook-call.js";

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

/** A playbook written as a fenced YAML block instead of a call (accepted, as SoloGen does). */
export function fencedPlaybook(content: string): string | undefined {
  return content.match(/```(?:ya?ml)\s*\n([\s\S]*?)```/)?.[1];
}

function object(raw: string, example: string): Record<string, unknown> | { problem: string } {
  const shown = raw.length > 200 ? `${raw.slice(0, 200)}...` : raw;
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
    return { problem: `the arguments must be a JSON object like ${example}, got ${shown}` };
  } catch (e) {
    return {
      problem: `the arguments are not valid JSON (${(e as Error).message}); write a JSON object like ${example}, got ${shown}`,
    };
  }
}

export function commandArg(raw: string): { command: string } | { problem: string } {
  const example = '{"command": "kubectl get pods"}';
  const args = object(raw, example);
  if ("problem" in args) return { problem: `probe_system: ${args.problem}` };
  // `cmds` is the reference's name for it (a string, or a list of commands)
  const v = args.command ?? args.cmds;
  const command = Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join("; ") : v;
  if (typeof command !== "string" || !command.trim())
    return { problem: `probe_system: "command" must be a non-empty string, like ${example}` };
  return { command };
}

export function playbookArg(raw: string): { playbook: string } | { problem: string } {
  const example = '{"playbook": "- hosts: localhost\\n  tasks: ..."}';
  const args = object(raw, example);
  if ("problem" in args) return { problem: `print_playbook: ${args.problem}` };
  // `code` is the reference's name for it
  const v = args.playbook ?? args.code;
  if (typeof v !== "string" || !v.trim())
    return { problem: `print_playbook: "playbook" must be the playbook's YAML text, like ${example}` };
  return { playbook: v };
}

/** The answer to a call, in the form its protocol expects. */
export function answer(call: Call, content: string): ChatMessage {
  if (call.id) return { role: "tool", toolCallId: call.id, name: call.name, content };
  return { role: "user", content: `Observation: ${content}` };
}
