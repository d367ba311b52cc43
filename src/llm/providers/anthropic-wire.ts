// Anthropic's Messages wire format: system prompt apart, tool calls as tool_use blocks, tool
// results as tool_result blocks in a user turn; and its stream events back to one message.
// Type-only imports, so the SDK is still loaded lazily by the provider.
import type Anthropic from "@anthropic-ai/sdk";
import type { ChatMessage, ToolCall, ToolSchema, Usage } from "../types.js";

type Block = Anthropic.ContentBlockParam;
type Turn = { role: "user" | "assistant"; content: Block[] };

/** A tool_use input must be an object; a malformed call is kept visible rather than dropped. */
function toolInput(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw);
    if (v && typeof v === "object" && !Array.isArray(v)) return v;
  } catch {
    // fall through
  }
  return { _unparsed_arguments: raw };
}

export function toAnthropic(messages: ChatMessage[]): { system?: string; messages: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    if (!blocks.length) return;
    // Consecutive same-role turns are merged: tool results and a following note are one user turn.
    const last = turns[turns.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  // The API refuses empty text blocks.
  const text = (t: string): Block[] => (t.trim() ? [{ type: "text", text: t }] : []);
  for (const m of messages) {
    if (m.role === "system") system.push(m.content);
    else if (m.role === "user") push("user", text(m.content));
    else if (m.role === "tool")
      push("user", [{ type: "tool_result", tool_use_id: m.toolCallId ?? "", content: m.content }]);
    else {
      const calls: Block[] = (m.toolCalls ?? []).map((c) => ({
        type: "tool_use",
        id: c.id,
        name: c.name,
        input: toolInput(c.arguments),
      }));
      push("assistant", [...text(m.content), ...calls]);
    }
  }
  return { ...(system.length ? { system: system.join("\n\n") } : {}), messages: turns };
}

export function toAnthropicTools(tools: ToolSchema[]): Anthropic.Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { ...t.parameters, type: "object" },
  }));
}

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
}

/**
 * Anthropic's input_tokens exclude cache reads and writes; ours (Usage.inputTokens) include them,
 * as OpenAI's prompt_tokens do, so cachedTokens is a part of inputTokens for every provider.
 */
export function anthropicUsage(u: RawUsage): Usage {
  const read = u.cache_read_input_tokens ?? undefined;
  const written = u.cache_creation_input_tokens ?? undefined;
  const usage: Usage = {
    inputTokens: (u.input_tokens ?? 0) + (read ?? 0) + (written ?? 0),
    outputTokens: u.output_tokens ?? 0,
  };
  if (read !== undefined) usage.cachedTokens = read;
  if (written !== undefined) usage.cacheWriteTokens = written;
  const thinking = u.output_tokens_details?.thinking_tokens;
  if (typeof thinking === "number") usage.reasoningTokens = thinking;
  return usage;
}

/**
 * Folds stream events into one message. message_start carries the input usage, message_delta the
 * cumulative output usage; tool inputs arrive as input_json_delta fragments per block index.
 */
export class AnthropicEventAssembler {
  private readonly blocks = new Map<number, { text: string } | (ToolCall & { seed: string })>();
  private raw?: RawUsage;
  stopReason?: string;

  add(event: Anthropic.RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.raw = { ...event.message.usage };
        break;
      case "content_block_start": {
        const b = event.content_block;
        if (b.type === "text") this.blocks.set(event.index, { text: b.text });
        else if (b.type === "tool_use") {
          const seed = b.input && Object.keys(b.input as object).length ? JSON.stringify(b.input) : "";
          this.blocks.set(event.index, { id: b.id, name: b.name, arguments: "", seed });
        }
        break;
      }
      case "content_block_delta": {
        const b = this.blocks.get(event.index);
        if (!b) break;
        if (event.delta.type === "text_delta" && "text" in b && !("id" in b)) b.text += event.delta.text;
        if (event.delta.type === "input_json_delta" && "id" in b) b.arguments += event.delta.partial_json;
        break;
      }
      case "message_delta": {
        // Cumulative counts: a field present here replaces the one from message_start.
        const d = event.usage as RawUsage;
        const merged: RawUsage = { ...this.raw };
        for (const [k, v] of Object.entries(d))
          if (v !== null && v !== undefined) (merged as Record<string, unknown>)[k] = v;
        this.raw = merged;
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        break;
      }
      default:
        break;
    }
  }

  result(): { message: ChatMessage; usage?: Usage } {
    const ordered = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    const content = ordered.flatMap((b) => ("id" in b ? [] : [b.text])).join("");
    const toolCalls = ordered.flatMap((b) =>
      "id" in b ? [{ id: b.id, name: b.name, arguments: b.arguments || b.seed || "{}" }] : [],
    );
    const message: ChatMessage = { role: "assistant", content };
    if (toolCalls.length) message.toolCalls = toolCalls;
    return { message, usage: this.raw ? anthropicUsage(this.raw) : undefined };
  }
}
