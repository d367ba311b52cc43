// OpenAI's chat completions through the official SDK, streamed. The SDK is imported on the first
// call, so listing models or running the built-in ones never loads it; its own retries are off
// because the retry loop (../retry.ts) owns them.
import type OpenAI from "openai";
import { MicroRemedError } from "../../errors.js";
import type { RetryVerdict } from "../retry.js";
import type { ChatMessage, ToolSchema } from "../types.js";
import { ProviderModel, type RawReply } from "./base.js";
import { classifySdkError, oneLine } from "./http-errors.js";
import { ChatChunkAssembler, completionReply, toOpenAIMessages, toOpenAITools } from "./openai-wire.js";

type Sdk = typeof import("openai");

export class OpenAIChatModel extends ProviderModel {
  private sdk?: Sdk;
  private client?: OpenAI;

  /** OpenAI's reasoning models refuse max_tokens; compatible servers override this. */
  protected maxTokensField(): "max_completion_tokens" | "max_tokens" {
    return "max_completion_tokens";
  }

  private async connect(): Promise<OpenAI> {
    if (!this.client) {
      this.sdk = await import("openai");
      const s = this.settings;
      // Local servers need no key, but the SDK insists on one; they ignore it.
      this.client = new this.sdk.OpenAI({
        apiKey: s.apiKey ?? "not-needed",
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
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: s.apiModel,
          messages: toOpenAIMessages(messages),
          stream: true,
          // The usage of a streamed call comes in one last chunk, only when asked for.
          stream_options: { include_usage: true },
          ...(tools.length ? { tools: toOpenAITools(tools) } : {}),
          ...(s.maxOutputTokens ? { [this.maxTokensField()]: s.maxOutputTokens } : {}),
        },
        { signal },
      )
      .withResponse();
    // A server that ignores `stream: true` answers with one JSON body; the stream is read lazily,
    // so the body is still there to be read whole.
    if (/^application\/json/i.test(response.headers.get("content-type") ?? ""))
      return completionReply((await response.json()) as Parameters<typeof completionReply>[0]);
    const assembler = new ChatChunkAssembler();
    for await (const chunk of stream) assembler.add(chunk);
    return assembler.result();
  }

  protected classify(e: unknown): RetryVerdict {
    if (this.sdk) return classifySdkError(e, this.sdk, this.context);
    return {
      retry: false,
      error: new MicroRemedError(
        "E_MODEL",
        `cannot load the openai package: ${oneLine(String((e as Error)?.message ?? e))}`,
        "run npm install in the microremed folder",
        { cause: e },
      ),
    };
  }
}
