// The one playbook parser every method uses. A model hands in a playbook as the print_playbook
// tool call (argument `playbook`, or `code` as the reference names it), or, without native tools,
// as the reference's text protocol (Action: print_playbook / Action Input: {...}), a fenced YAML
// block, or a bare YAML document of plays. Anything else is a wrong answer, explained.
import { parse } from "yaml";
import { textToolCall } from "../llm/providers/text-protocol.js";
import type { ChatMessage } from "../llm/types.js";

export type PlaybookAnswer = { playbook: string; callId?: string } | { problem: string; callId?: string };

const EXAMPLE = '{"playbook": "- hosts: localhost\\n  tasks: ..."}';

/** A tool call's arguments as a JSON object, or what is wrong with them. */
export function argumentsObject(raw: string, example: string): Record<string, unknown> | { problem: string } {
  const shown = raw.length > 200 ? `${raw.slice(0, 200)}...` : raw;
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
    return { problem: `the arguments must be a JSON object like ${example}, got ${shown}` };
  } catch (e) {
    return {
      problem: `the arguments are not valid JSON (${(e as Error).message}); write a JSON object like ${example}, got ${shown}`,
    };
  }
}

/** print_playbook's arguments: `playbook`, or the reference's `code`. */
export function playbookArgument(raw: string): { playbook: string } | { problem: string } {
  const args = argumentsObject(raw, EXAMPLE);
  if ("problem" in args) return { problem: `print_playbook: ${args.problem}` };
  const v = args.playbook ?? args.code;
  if (typeof v !== "string" || !v.trim())
    return { problem: `print_playbook: "playbook" must be the playbook's YAML text, like ${EXAMPLE}` };
  return { playbook: v };
}

/** A list of plays (each a mapping with `hosts`): what ansible-playbook runs. */
function isPlaybookDocument(text: string): boolean {
  try {
    const doc: unknown = parse(text);
    return (
      Array.isArray(doc) &&
      doc.length > 0 &&
      doc.every((p) => p !== null && typeof p === "object" && !Array.isArray(p) && "hosts" in p)
    );
  } catch {
    return false;
  }
}

/** A playbook written in plain text: the text protocol's call, a fenced YAML block, or bare YAML. */
export function playbookFromText(content: string): string | undefined {
  const call = textToolCall(content);
  if (call?.name === "print_playbook") {
    const arg = playbookArgument(call.arguments);
    if ("playbook" in arg) return arg.playbook;
  }
  // a block marked as YAML is the answer even if it does not parse (the executor says why);
  // an unmarked block only when it is a playbook
  const tagged = content.match(/```ya?ml[ \t]*\n([\s\S]*?)```/);
  if (tagged) return tagged[1];
  const fenced = content.match(/```[ \t]*\n([\s\S]*?)```/);
  if (fenced && isPlaybookDocument(fenced[1])) return fenced[1];
  if (isPlaybookDocument(content)) return content;
  return undefined;
}

/** The playbook of an answer that must hold one (SoloGen's only turn). */
export function readPlaybook(msg: ChatMessage): PlaybookAnswer {
  const call = msg.toolCalls?.find((c) => c.name === "print_playbook");
  if (call) {
    const arg = playbookArgument(call.arguments);
    return "playbook" in arg
      ? { playbook: arg.playbook, callId: call.id }
      : { problem: arg.problem, callId: call.id };
  }
  if (msg.toolCalls?.length)
    return {
      problem: `the model called ${msg.toolCalls.map((c) => c.name).join(", ")} instead of print_playbook`,
      callId: msg.toolCalls[0].id,
    };
  const text = playbookFromText(msg.content);
  if (text !== undefined) return { playbook: text };
  return { problem: "the model answered without calling print_playbook and without a playbook" };
}
