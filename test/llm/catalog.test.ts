// The model registry: ids and prefixes to providers, keys checked before a run, unknown ids
// refused with the families, and the file itself validated.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MicroRemedError } from "../../src/errors.js";
import { loadRegistry, matchModel } from "../../src/llm/catalog.js";
import { KEY_VARIABLES } from "../../src/llm/keys.js";
import { registryListing } from "../../src/llm/listing.js";
import { AnthropicModel } from "../../src/llm/providers/anthropic.js";
import { CompatibleChatModel } from "../../src/llm/providers/compatible.js";
import { OpenAIChatModel } from "../../src/llm/providers/openai.js";
import { resolveModel } from "../../src/llm/registry.js";

const reg = loadRegistry();
const ALL_KEYS = {
  OPENAI_API_KEY: "o",
  ANTHROPIC_API_KEY: "a",
  DASHSCOPE_API_KEY: "d",
  DEEPSEEK_API_KEY: "s",
};

function thrown(f: () => unknown): MicroRemedError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(MicroRemedError);
    return e as MicroRemedError;
  }
  throw new Error("expected an error");
}

describe("model registry", () => {
  it.each([
    ["gpt-4o", "openai", "gpt-4o", 2.5],
    ["gpt-4o-2024-08-06", "openai", "gpt-4o-2024-08-06", 2.5],
    ["gpt-4o-mini", "openai", "gpt-4o-mini", 0.15],
    ["gpt-4.1-mini-2025-04-14", "openai", "gpt-4.1-mini-2025-04-14", 0.4],
    ["o3", "openai", "o3", 2],
    ["o4-mini-2025-04-16", "openai", "o4-mini-2025-04-16", 1.1],
    ["claude-sonnet-4-20250514", "anthropic", "claude-sonnet-4-20250514", 3],
    ["claude-opus-4-1-20250805", "anthropic", "claude-opus-4-1-20250805", 15],
    ["claude-3-5-haiku-latest", "anthropic", "claude-3-5-haiku-latest", 0.8],
    ["qwen-plus", "dashscope", "qwen-plus", 0.11],
    ["qwen3-235b-a22b", "dashscope", "qwen3-235b-a22b", undefined],
    ["qwq-plus", "dashscope", "qwq-plus", undefined],
    ["glm-4.5", "dashscope", "glm-4.5", undefined],
    ["deepseek-v3", "dashscope", "deepseek-v3", 0.28],
    ["Moonshot-Kimi-K2-Instruct", "dashscope", "Moonshot-Kimi-K2-Instruct", undefined],
    ["llama-4-scout-17b-16e-instruct", "dashscope", "llama-4-scout-17b-16e-instruct", undefined],
    ["deepseek/deepseek-reasoner", "deepseek", "deepseek-reasoner", 0.28],
    ["deepseek/deepseek-v4", "deepseek", "deepseek-v4", undefined],
    ["vllm/meta-llama/Llama-3.1-8B-Instruct", "vllm", "meta-llama/Llama-3.1-8B-Instruct", 0],
    ["ollama/qwen2.5:7b", "ollama", "qwen2.5:7b", 0],
    ["openai-compatible:my-model", "custom", "my-model", undefined],
  ])("%s → %s, sent as %s", (id, provider, apiModel, inputPrice) => {
    const m = matchModel(reg, id);
    expect(m?.providerName).toBe(provider);
    expect(m?.apiModel).toBe(apiModel);
    expect(m?.entry.prices?.input).toBe(inputPrice);
  });

  it("builds the provider the entry's API calls for", () => {
    expect(resolveModel("gpt-4o", { env: ALL_KEYS })).toBeInstanceOf(OpenAIChatModel);
    expect(resolveModel("claude-sonnet-4-20250514", { env: ALL_KEYS })).toBeInstanceOf(AnthropicModel);
    expect(resolveModel("qwen-max", { env: ALL_KEYS })).toBeInstanceOf(CompatibleChatModel);
    expect(resolveModel("vllm/x", { env: {} }).id).toBe("vllm/x");
  });

  it("sends an id no entry routes to a local OpenAI-compatible server, as the reference, and says so", () => {
    for (const id of ["mistral-large", "o3-pro", "grok-4", "my-finetune"]) {
      const m = resolveModel(id, { env: {} });
      expect(m).toBeInstanceOf(CompatibleChatModel);
      expect(m.id).toBe(id);
      expect(m.notice).toBe(
        `model "${id}" is in no entry of the model registry: asking the OpenAI-compatible server at http://localhost:8000/v1 (where the reference sends such names; --base-url URL chooses another)`,
      );
    }
    // --base-url (or MICROREMED_BASE_URL) says which server: the notice names it
    expect(resolveModel("my-finetune", { env: {}, baseUrl: "http://10.0.0.5:9000/v1" }).notice).toBe(
      'model "my-finetune" is in no entry of the model registry: asking the OpenAI-compatible server at http://10.0.0.5:9000/v1',
    );
    // a routed id says nothing
    expect(resolveModel("gpt-4o", { env: ALL_KEYS }).notice).toBeUndefined();
  });

  it("asks the server of --base-url as an OpenAI-compatible one whatever the id, no key required", () => {
    const baseUrl = "http://127.0.0.1:8000/v1";
    for (const [id, family] of [
      ["qwen2.5-7b-instruct", "dashscope"],
      ["claude-sonnet-4-20250514", "anthropic"],
      ["gpt-4o", "openai"],
    ]) {
      const m = resolveModel(id, { env: {}, baseUrl });
      expect(m, id).toBeInstanceOf(CompatibleChatModel);
      expect(m.notice).toBe(
        `model "${id}": asking the OpenAI-compatible server of --base-url at ${baseUrl} for "${id}", not ${family}`,
      );
    }
    // the family's key goes along when it is set
    expect(resolveModel("qwen-plus", { env: { DASHSCOPE_API_KEY: "d" }, baseUrl }).notice).toMatch(
      / \(with the key in DASHSCOPE_API_KEY\)$/,
    );
    // a vllm/ id at another port is still the local server it was: no notice
    const local = resolveModel("vllm/x", { env: {}, baseUrl: "http://127.0.0.1:9000/v1" });
    expect(local).toBeInstanceOf(CompatibleChatModel);
    expect(local.notice).toBeUndefined();
  });

  it("refuses ids that name no model with E_UNKNOWN_MODEL listing the families", () => {
    for (const id of ["vllm/", "openai-compatible:", "ollama/", " "]) {
      const e = thrown(() => resolveModel(id, { env: ALL_KEYS }));
      expect(e.code).toBe("E_UNKNOWN_MODEL");
      expect(e.fix).toContain("oracle");
      for (const family of [
        "gpt-4o*",
        "claude-*",
        "qwen*",
        "deepseek/<model>",
        "vllm/<model>",
        "openai-compatible:<model>",
      ])
        expect(e.fix).toContain(family);
      // A family already covered by a shorter prefix is not repeated.
      expect(e.fix).not.toContain("claude-sonnet-4*");
    }
  });

  it("fails at resolution, before a run, when the key is missing, naming the variables", () => {
    const e = thrown(() => resolveModel("claude-opus-4-20250514", { env: { OPENAI_API_KEY: "o" } }));
    expect(e.code).toBe("E_MISSING_API_KEY");
    expect(e.oneLine()).toContain("set ANTHROPIC_API_KEY or LLM_API_KEY");
    expect(thrown(() => resolveModel("qwen-plus", { env: {} })).oneLine()).toContain("DASHSCOPE_API_KEY");
    expect(
      thrown(() => resolveModel("deepseek/deepseek-chat", { env: { DASHSCOPE_API_KEY: "d" } })).oneLine(),
    ).toContain("DEEPSEEK_API_KEY");
  });

  it("accepts LLM_API_KEY for any provider, as the reference does", () => {
    for (const id of ["gpt-4o", "claude-sonnet-4", "qwen-plus", "deepseek/deepseek-chat"])
      expect(() => resolveModel(id, { env: { LLM_API_KEY: "k" } })).not.toThrow();
  });

  it("needs a base URL for openai-compatible:<model>, from MICROREMED_BASE_URL or the option", () => {
    expect(thrown(() => resolveModel("openai-compatible:m", { env: {} })).code).toBe("E_CONFIG");
    expect(() =>
      resolveModel("openai-compatible:m", { env: { MICROREMED_BASE_URL: "http://127.0.0.1:9/v1" } }),
    ).not.toThrow();
    expect(() =>
      resolveModel("openai-compatible:m", { env: {}, baseUrl: "http://127.0.0.1:9/v1" }),
    ).not.toThrow();
  });

  it("keeps keys.ts (doctor) in step with the registry's key variables", () => {
    for (const [provider, vars] of Object.entries(KEY_VARIABLES))
      expect(reg.providers[provider]?.keyVariables).toEqual(vars);
  });

  it("validates the file with errors that name the place", () => {
    const dir = mkdtempSync(join(tmpdir(), "registry-"));
    const file = join(dir, "registry.yaml");
    writeFileSync(
      file,
      "defaults: {retry: {maxAttempts: 0, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 1}, requestTimeoutMs: 1}\nproviders: {}\nmodels: [{id: x, provider: p, tools: maybe}]\n",
    );
    const e = thrown(() => loadRegistry(file));
    expect(e.code).toBe("E_CONFIG");
    expect(e.message).toContain("/defaults/retry/maxAttempts");
    expect(e.message).toContain("/models/0/tools");

    const other = join(dir, "other.yaml");
    writeFileSync(
      other,
      "defaults: {retry: {maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 1}, requestTimeoutMs: 1}\nproviders: {}\nmodels: [{id: x, provider: nowhere, tools: text}]\n",
    );
    expect(thrown(() => loadRegistry(other)).message).toContain('unknown provider "nowhere"');
  });

  it("lists every entry with its provider, key status and prices", () => {
    const lines = registryListing({ OPENAI_API_KEY: "o" });
    const row = (label: string) => lines.find((l) => l.trim().startsWith(`${label} `)) ?? "";
    expect(row("gpt-4o*")).toMatch(/openai\s+native\s+set \(OPENAI_API_KEY\)\s+2\.5 \/ 10 \/ 1\.25/);
    expect(row("claude-sonnet-4*")).toContain("not set (ANTHROPIC_API_KEY or LLM_API_KEY)");
    expect(row("vllm/<model>")).toMatch(/not needed\s+0 \/ 0 \/ 0/);
    expect(row("qwen*")).toContain("unknown");
    expect(lines.at(-1)).toBe(
      "  (any other id goes to the OpenAI-compatible server at http://localhost:8000/v1, as the reference sends it; --base-url URL chooses another)",
    );
  });

  it("refuses an unrouted provider the file does not define", () => {
    const other = join(mkdtempSync(join(tmpdir(), "reg-")), "r.yaml");
    writeFileSync(
      other,
      "defaults: {retry: {maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxTotalMs: 1}, requestTimeoutMs: 1, unrouted: {provider: gone, tools: text}}\nproviders: {}\nmodels: []\n",
    );
    expect(thrown(() => loadRegistry(other)).message).toContain(
      '/defaults/unrouted: unknown provider "gone"',
    );
  });
});
