// The models people compare in late 2026 (GPT-5, the newest Claude Opus and Sonnet, Gemini through
// Google's OpenAI-compatible endpoint, Qwen3, DeepSeek V3.x, Kimi, GLM): each routes to its
// provider with the prices the registry records (or none: "unknown"), and every entry of the
// registry routes an id to a provider that exists and builds the model its API calls for.
// `microremed models` lists them through the CLI.
import { describe, expect, it } from "vitest";
import { entryLabel, loadRegistry, type ModelEntry, matchModel } from "../../src/llm/catalog.js";
import { KEY_VARIABLES } from "../../src/llm/keys.js";
import { AnthropicModel } from "../../src/llm/providers/anthropic.js";
import { CompatibleChatModel } from "../../src/llm/providers/compatible.js";
import { OpenAIChatModel } from "../../src/llm/providers/openai.js";
import { resolveModel } from "../../src/llm/registry.js";
import { checkBuilt, cli } from "../cli/cli-helpers.js";

const reg = loadRegistry();
const EVERY_KEY = Object.fromEntries(
  Object.values(KEY_VARIABLES)
    .flat()
    .map((v) => [v, "k"]),
);

/** An id the entry is meant to route: its own, or a name under its prefix (a family's variant). */
function sampleId(e: ModelEntry): string {
  if (e.id) return e.id;
  const prefix = e.prefix ?? "";
  return /[-/:]$/.test(prefix) ? `${prefix}some-model` : `${prefix}-variant`;
}

describe("model registry, late 2026", () => {
  it.each([
    ["gpt-5", "openai", "gpt-5", 1.25],
    ["gpt-5-2025-08-07", "openai", "gpt-5-2025-08-07", 1.25],
    ["gpt-5-mini", "openai", "gpt-5-mini", 0.25],
    ["gpt-5-nano", "openai", "gpt-5-nano", 0.05],
    ["gpt-5.2", "openai", "gpt-5.2", 1.75],
    ["gpt-5.4-mini", "openai", "gpt-5.4-mini", 0.75],
    ["gpt-5.5", "openai", "gpt-5.5", 5],
    ["gpt-5.5-pro", "openai", "gpt-5.5-pro", 30],
    // a GPT-5 model without an entry of its own: OpenAI, prices unknown (not an older model's)
    ["gpt-5.6-sol", "openai", "gpt-5.6-sol", undefined],
    ["claude-opus-5-5", "anthropic", "claude-opus-5-5", 4],
    ["claude-sonnet-5-5", "anthropic", "claude-sonnet-5-5", 2],
    ["claude-opus-4-6", "anthropic", "claude-opus-4-6", 5],
    ["claude-sonnet-4-6", "anthropic", "claude-sonnet-4-6", 3],
    ["gemini-3.1-pro-preview", "gemini", "gemini-3.1-pro-preview", 2],
    ["gemini-2.5-flash", "gemini", "gemini-2.5-flash", 0.3],
    ["gemini-3.8-flash", "gemini", "gemini-3.8-flash", undefined],
    ["qwen3-max", "dashscope", "qwen3-max", undefined],
    ["qwen3-coder-plus", "dashscope", "qwen3-coder-plus", undefined],
    ["deepseek-v3.2", "dashscope", "deepseek-v3.2", undefined],
    ["deepseek/deepseek-chat", "deepseek", "deepseek-chat", 0.28],
    ["moonshot/kimi-k3", "moonshot", "kimi-k3", 3],
    ["moonshot/kimi-k2.6", "moonshot", "kimi-k2.6", undefined],
    ["kimi-k2.6", "dashscope", "kimi-k2.6", undefined],
    ["zai/glm-5.3", "zai", "glm-5.3", 1.4],
    ["zai/glm-4.6", "zai", "glm-4.6", 0.6],
    ["glm-5", "dashscope", "glm-5", undefined],
  ])("%s → %s, sent as %s", (id, provider, apiModel, input) => {
    const m = matchModel(reg, id);
    expect(m?.unrouted).toBeFalsy();
    expect(m?.providerName).toBe(provider);
    expect(m?.apiModel).toBe(apiModel);
    expect(m?.entry.prices?.input).toBe(input);
  });

  it("every entry routes an id to a provider, which builds the model its API calls for", () => {
    const CLASS = {
      openai: OpenAIChatModel,
      anthropic: AnthropicModel,
      "openai-compatible": CompatibleChatModel,
    };
    for (const e of reg.models) {
      const id = sampleId(e);
      const m = matchModel(reg, id);
      expect(m?.entry, entryLabel(e)).toBe(e);
      const provider = reg.providers[e.provider];
      expect(provider, e.provider).toBeDefined();
      expect(
        resolveModel(id, { env: { ...EVERY_KEY, MICROREMED_BASE_URL: "http://127.0.0.1:9/v1" } }),
      ).toBeInstanceOf(CLASS[provider.api]);
    }
  });

  it("microremed models lists the new families, their providers and prices, unknown where none is recorded", async () => {
    checkBuilt();
    const r = await cli(["models"], { env: { PATH: process.env.PATH ?? "", GEMINI_API_KEY: "g" } });
    expect(r.exitCode, r.stderr).toBe(0);
    const row = (label: string) => r.stdout.split("\n").find((l) => l.trim().startsWith(`${label} `)) ?? "";
    expect(row("gpt-5.5*")).toMatch(/openai .* 5 \/ 30 \/ 0\.5$/);
    expect(row("claude-opus-5-5*")).toMatch(/anthropic .* 4 \/ 20 \/ 0\.2$/);
    expect(row("gemini-*")).toMatch(/gemini .* set \(GEMINI_API_KEY\) .* unknown$/);
    expect(row("moonshot/kimi-k3")).toMatch(
      /moonshot .* not set \(MOONSHOT_API_KEY or LLM_API_KEY\) .* 3 \/ 15 \/ 0\.3$/,
    );
    expect(row("zai/<model>")).toMatch(/zai .* unknown$/);
    expect(row("qwen3*")).toMatch(/dashscope .* unknown$/);
    expect(r.stdout).toMatch(/gemini +set \(GEMINI_API_KEY\)/);
  });
});
