// Reading the playbook out of what a model answered: the print_playbook tool call, or, for a
// model without native tools, the reference's text protocol (Action: print_playbook /
// Action Input: {...}) or a fenced YAML block. Anything else is a wrong answer, explained.
import type { ChatMessage } from "../models/types.js";

export type PlaybookAnswer = { playbook: string; callId?: string } | { problem: string; callId?: string };

function fromArguments(raw: string): string | undefined {
  try {
    const args = JSON.parse(raw);
    if (args && typeof args.playbook === "string" && args.playbook.trim()) return args.playbook;
    return undefined;
  } catch {
    return undefined;
  }
}

export function textToolCall(content: string): { name: string; arguments: string } | undefined {
  const m = content.match(/Action:\s*([\w-]+)\s*\n\s*Action Input:\s*([\s\S]*)$/);
  if (!m) return undefined;
  return { name: m[1], arguments: m[2].trim().replace(/^```(?:json)?\s*|\s*```$/g, "") };
}

export function extractPlaybook(msg: ChatMessage): PlaybookAnswer {
  const call = msg.toolCalls?.find((c) => c.name === "print_playbook");
  if (call) {
    const pb = fromArguments(call.arguments);
    return pb
      ? { playbook: pb, callId: call.id }
      : {
          problem: `print_playbook was called with arguments that are not a JSON object with a "playbook" string: ${call.arguments.slice(0, 200)}`,
          callId: call.id,
        };
  }
  if (msg.toolCalls?.length)
    return {
      problem: `the model called ${msg.toolCalls.map((c) => c.name).join(", ")} instead of print_playbook`,
      callId: msg.toolCalls[0].id,
    };
  const text = textToolCall(msg.content);
  if (text?.name === "print_playbook") {
    const pb = fromArguments(text.arguments);
    if (pb) return { playbook: pb };
  }
  const fenced = msg.content.match(/```(?:ya?ml)\s*\n([\s\S]*?)```/);
  if (fenced) return { playbook: fenced[1] };
  return { problem: "the model answered without calling print_playbook and without a playbook" };
}
