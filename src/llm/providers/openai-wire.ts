// The chat-completions wire format (OpenAI and every OpenAI-compatible server): our messages and
// tool schemas to its parameters, and its streamed chunks back to one message with usage.
// Type-only imports, so the SDK is still loaded lazily by the provider.
import type OpenAI from "openai";
import type { ChatMessage, ToolCall, ToolSchema, Usage } from "../types.js";

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type WireTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Completion = OpenAI.Chat.Completions.ChatCompletion;
/** DeepSeek reports cache hits in its own fields besides (or instead of) prompt_tokens_details. */
type WireUsage = OpenAI.CompletionUsage & { prompt_cache_hit_tokens?: number };

export function toOpenAIMessages(messages: ChatMessage[]): WireMessage[] {
  return messages.map((m): WireMessage => {
    if (m.role === "system") return { role: "system", content: m.content };
    if (m.role === "user") return { role: "user", content: m.content };
    if (m.role === "tool") return { role: "tool", tool_call_id: m.toolCallId ?? "", content: m.content };
    if (!m.toolCalls?.length) return { role: "assistant", content: m.content };
    return {
      role: "assistant",
      // null, not "", beside tool calls: what the API itself returns for such turns.
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  });
}

export function toOpenAITools(tools: ToolSchema[]): WireTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** Exactly the fields the server sent: absent details stay absent rather than becoming 0. */
export function openaiUsage(u: WireUsage): Usage {
  const usage: Usage = { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens };
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens;
  if (typeof cached === "number") usage.cachedTokens = cached;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Folds a stream of chunks into one message. Tool calls arrive in pieces keyed by index: the
 * first piece carries id and name, later pieces append to the arguments text.
 */
export class ChatChunkAssembler {
  private content = "";
  private readonly calls = new Map<number, ToolCall>();
  private usage?: Usage;
  finishReason?: string;

  add(chunk: Chunk): void {
    // With include_usage the last chunk has empty choices and the usage of the whole call.
    if (chunk.usage) this.usage = openaiUsage(chunk.usage as WireUsage);
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
      const d = choice.delta;
      if (!d) continue;
      if (d.content) this.content += d.content;
      for (const piece of d.tool_calls ?? []) {
        // Some compatible servers omit the index; a new id then means a new call.
        const key =
          typeof piece.index === "number"
            ? piece.index
            : piece.id
              ? this.calls.size
              : Math.max(0, this.calls.size - 1);
        let call = this.calls.get(key);
        if (!call) {
          call = { id: piece.id || `call_${key}`, name: "", arguments: "" };
          this.calls.set(key, call);
        }
        if (piece.id) call.id = piece.id;
        // OpenAI sends the name once, in the first piece; keep it rather than concatenating repeats.
        if (piece.function?.name && !call.name) call.name = piece.function.name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
      }
    }
  }

  result(): { message: ChatMessage; usage?: Usage } {
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    const message: ChatMessage = { role: "assistant", content: this.content };
    if (toolCalls.length) message.toolCalls = toolCalls;
    return { message, usage: this.usage };
  }
}

/**
 * A whole chat.completion body: what a server that ignores `stream: true` (some gateways and test
 * servers) answers instead of a stream. The same message and usage a stream would have built.
 */
export function completionReply(body: Completion): { message: ChatMessage; usage?: Usage } {
  const m = body.choices?.find((c) => c.index === 0)?.message ?? body.choices?.[0]?.message;
  const message: ChatMessage = { role: "assistant", content: m?.content ?? "" };
  // read by its function field, since some servers leave out `type`
  const calls = (m?.tool_calls ?? []).flatMap((c, i): ToolCall[] => {
    const f = (c as { function?: { name?: string; arguments?: string } }).function;
    return f?.name ? [{ id: c.id || `call_${i}`, name: f.name, arguments: f.arguments ?? "" }] : [];
  });
  if (calls.length) message.toolCalls = calls;
  return { message, usage: body.usage ? openaiUsage(body.usage as WireUsage) : undefined };
}
