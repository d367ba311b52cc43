// OpenAI-compatible servers (DashScope, DeepSeek, vLLM, Ollama, any --base-url): the same wire
// format and SDK as OpenAI, with the differences kept here. DeepSeek's prompt_cache_hit_tokens
// are read by the shared usage mapping (openai-wire.ts), since OpenAI never sends them.
import { OpenAIChatModel } from "./openai.js";

export class CompatibleChatModel extends OpenAIChatModel {
  /** max_completion_tokens is OpenAI's newer name; vLLM, Ollama and DashScope know max_tokens. */
  protected override maxTokensField(): "max_completion_tokens" | "max_tokens" {
    return "max_tokens";
  }
}
