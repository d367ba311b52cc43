// Anthropic's Messages API through the official SDK, streamed, with native tool use. The SDK is
// imported on the first call; its own retries are off because the retry loop owns them.
import type Anthropic from "@anthropic-ai/sdk";
import { MicroRemedError } from "../../errors.js";
import type { RetryVerdict } from "../retry.js";
import type { ChatMessage, ToolSchema } from "../types.js";
import { AnthropicEventAssembler, toAnthropic, toAnthropicTools } from "./anthropic-wire.js";
import { ProviderModel, type RawReply } from "./base.js";
import { classifySdkError, oneLine } from "./http-errors.js";

type Sdk = typeof import("@anthropic-ai/sdk");

/** Anthropic requires max_tokens; the registry's check guarantees entries set it. */
const FALLBACK_MAX_TOKENS = 8192;

export class AnthropicModel extends ProviderModel {
  private sdk?: Sdk;
  private client?: Anthropic;

  private async connect(): Promise<Anthropic> {
    if (!this.client) {
      this.sdk = await import("@anthropic-ai/sdk");
      const s = this.settings;
      this.client = new this.sdk.Anthropic({
        apiKey: s.apiKey ?? null,
        baseURL: s.baseUrl,
        maxRetries: 0,
        timeout: s.timeoutMs,
      });
    }
    return this.client;
  }

  protected async callOnce(
    messages: ChatMessage[],
    tools: ToolSchema[],
    signal?: AbortSignal,
  ): Promise<RawReply> {
    const client = await this.connect();
    const s = this.settings;
    const { system, messages: turns } = toAnthropic(messages);
    const stream = await client.messages.create(
      {
        model: s.apiModel,
        max_tokens: s.maxOutputTokens ?? FALLBACK_MAX_TOKENS,
        messages: turns,
        stream: true,
        ...(system ? { system } : {}),
        ...(tools.length ? { tools: toAnthropicTools(tools) } : {}),
      },
      { signal },
    );
    const assembler = new AnthropicEventAssembler();
    for await (const event of stream) assembler.add(event);
    return assembler.result();
  }

  protected classify(e: unknown): RetryVerdict {
    if (this.sdk) return classifySdkError(e, this.sdk, this.context);
    return {
      retry: false,
      error: new MicroRemedError(
        "E_MODEL",
        `cannot load the @anthropic-ai/sdk package: ${oneLine(String((e as Error)?.message ?? e))}`,
        "run npm install in the microremed folder",
        { cause: e },
      ),
    };
  }
}
