// What every real provider shares: the text-protocol fallback, the one retry loop, usage and
// cost. A provider only says how to make one streamed call and what its errors mean.
import { MicroRemedError } from "../../errors.js";
import { callSignal } from "../../util/signal.js";
import type { Prices } from "../catalog.js";
import { costUsd, estimatedUsage } from "../cost.js";
import { type RetryClock, type RetryPolicy, type RetryVerdict, withRetries } from "../retry.js";
import type { ChatMessage, Model, ModelRequest, ModelResponse, ToolSchema, Usage } from "../types.js";
import type { CallContext } from "./http-errors.js";
import { parseTextReply, toTextProtocol } from "./text-protocol.js";

export interface ProviderSettings {
  /** The id the user chose (recorded with the run). */
  id: string;
  /** The name sent to the API. */
  apiModel: string;
  providerName: string;
  baseUrl: string;
  apiKey?: string;
  keyVariable?: string;
  keyVariables: string[];
  tools: "native" | "text";
  maxOutputTokens?: number;
  prices?: Prices;
  /** One attempt's limit (the SDK's timeout). */
  timeoutMs: number;
  retry: RetryPolicy;
  clock: RetryClock;
  /** A line the run prints when it starts (how an unrouted id was routed). */
  notice?: string;
}

/** One attempt's outcome; usage is undefined only when the server reported none. */
export interface RawReply {
  message: ChatMessage;
  usage?: Usage;
}

export abstract class ProviderModel implements Model {
  readonly id: string;
  readonly notice?: string;
  private textCalls = 0;

  constructor(protected readonly settings: ProviderSettings) {
    this.id = settings.id;
    this.notice = settings.notice;
  }

  /** One streamed request, assembled into a message. Throws the SDK's errors untouched. */
  protected abstract callOnce(
    messages: ChatMessage[],
    tools: ToolSchema[],
    signal?: AbortSignal,
  ): Promise<RawReply>;

  /** Whether an error from callOnce is worth another attempt (and how long the server asks to wait). */
  protected abstract classify(e: unknown): RetryVerdict;

  protected get context(): CallContext {
    const s = this.settings;
    return {
      label: `${s.id} (${s.providerName})`,
      providerName: s.providerName,
      baseUrl: s.baseUrl,
      keyVariable: s.keyVariable,
      keyVariables: s.keyVariables,
    };
  }

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const s = this.settings;
    const text = s.tools === "text" && req.tools.length > 0;
    const messages = text ? toTextProtocol(req.messages, req.tools) : req.messages;
    const tools = text ? [] : req.tools;
    const { value } = await withRetries(
      this.context.label,
      async () => {
        // the SDKs never take their listener off the signal they are given: one per call
        const call = callSignal(req.signal);
        try {
          return await this.callOnce(messages, tools, call.signal);
        } finally {
          call.release();
        }
      },
      (e) => this.classify(e),
      s.retry,
      s.clock,
      req.signal,
    );
    // A 200 with nothing in it is the provider's failure, not the model's answer.
    if (!value.message.content.trim() && !value.message.toolCalls?.length)
      throw new MicroRemedError(
        "E_MODEL",
        `${this.context.label} answered with an empty reply (no text, no tool call)`,
        "the case is recorded as an error of the run and runs again on resume",
        { reason: "empty-reply" },
      );
    const message = text
      ? parseTextReply(value.message, req.tools, `text-call-${++this.textCalls}`)
      : value.message;
    // Reported usage is taken as is; the estimate is only for servers that report nothing.
    const usage = value.usage ?? estimatedUsage(messages, value.message);
    const cost = costUsd(usage, s.prices);
    return { message, usage: cost === undefined ? usage : { ...usage, costUsd: cost } };
  }
}
