// The model seam: messages and tool schemas in, one assistant message (text and/or tool calls)
// and token usage out. Built-in models (oracle, noop, scripted) and real providers implement it.

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: ToolCall[];
  /** For role "tool": which call this answers. */
  toolCallId?: string;
  name?: string;
  /** When it was said (ISO 8601), where recorded: a model's turn (when asked), an MCP agent's call. */
  at?: string;
  /** A model's turn: the tokens and cost of the call that wrote it (stamped by the runner). */
  usage?: Usage;
}

export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface Usage {
  /** Every input token of the call, cached and cache-written ones included. */
  inputTokens: number;
  /** Every output token, reasoning included (as both OpenAI and Anthropic bill them). */
  outputTokens: number;
  /** The part of inputTokens read from the provider's prompt cache. */
  cachedTokens?: number;
  /** The part of outputTokens spent on reasoning, where the provider reports it. */
  reasoningTokens?: number;
  /** The part of inputTokens written to the prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  /** Set when the provider reported nothing and the counts are characters / 4. */
  estimated?: boolean;
  costUsd?: number;
}

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolSchema[];
  /** The agent role asking (for accounting): "generator", "coordinator", "probe", ... */
  role: string;
  signal?: AbortSignal;
}

export interface ModelResponse {
  message: ChatMessage;
  usage: Usage;
}

export interface Model {
  readonly id: string;
  /** One line the run prints when it starts, where the model's route needs saying. */
  readonly notice?: string;
  generate(req: ModelRequest): Promise<ModelResponse>;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: (a.cachedTokens ?? 0) + (b.cachedTokens ?? 0),
    reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0),
    costUsd: (a.costUsd ?? 0) + (b.costUsd ?? 0),
    // Only where present, so sums of usages that never had them look as before.
    ...(a.cacheWriteTokens || b.cacheWriteTokens
      ? { cacheWriteTokens: (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0) }
      : {}),
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
  };
}

/** The reference's estimate for models that report nothing: characters / 4. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
