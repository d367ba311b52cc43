// From a model id to a ready provider: look the id up in the registry, find its base URL and key,
// and fail here, before any case runs, when either is missing.
import { MicroRemedError } from "../errors.js";
import {
  type CatalogMatch,
  loadRegistry,
  matchModel,
  modelFamilies,
  registryFile,
  unroutedMatch,
} from "./catalog.js";
import { AnthropicModel } from "./providers/anthropic.js";
import type { ProviderSettings } from "./providers/base.js";
import { CompatibleChatModel } from "./providers/compatible.js";
import { OpenAIChatModel } from "./providers/openai.js";
import { type RetryClock, type RetryPolicy, realClock } from "./retry.js";
import type { Model } from "./types.js";

export interface ResolveOptions {
  /**
   * The server of --base-url: every id is asked there as an OpenAI-compatible server, with its
   * family's key if one is set (none is required); needed by `openai-compatible:` without
   * MICROREMED_BASE_URL.
   */
  baseUrl?: string;
  /** Overrides the registry's choice of native tools or the text protocol. */
  tools?: "native" | "text";
  /** Where key and base-URL variables are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Overrides of the registry's retry defaults. */
  retry?: Partial<RetryPolicy>;
  /** Time and chance for the retry loop (tests inject a sleep that does not wait). */
  clock?: Partial<RetryClock>;
  /** Another registry file (default: MICROREMED_MODEL_REGISTRY, else models/registry.yaml). */
  registryFile?: string;
}

/** Which variable supplies the key, if any is set. */
export function keyVariableFor(match: CatalogMatch, env: NodeJS.ProcessEnv): string | undefined {
  return match.provider.keyVariables.find((v) => env[v]);
}

/** The registry's families, for the "unknown model" message. */
export function providerFamilies(opts: ResolveOptions = {}): string[] {
  return modelFamilies(loadRegistry(opts.registryFile ?? registryFile(opts.env ?? process.env)));
}

/**
 * A registry model; an id no entry routes goes to the registry's unrouted server (as the
 * reference's), with a notice the run prints. Undefined only for an id that names nothing
 * (resolveModel then says so).
 */
export function createProviderModel(id: string, opts: ResolveOptions = {}): Model | undefined {
  const env = opts.env ?? process.env;
  const reg = loadRegistry(opts.registryFile ?? registryFile(env));
  const match = matchModel(reg, id) ?? unroutedMatch(reg, id);
  if (!match) return undefined;
  const { provider, providerName, entry } = match;

  const fromVariable = provider.baseUrlVariable ? env[provider.baseUrlVariable] : undefined;
  const baseUrl = opts.baseUrl || fromVariable || provider.baseUrl;
  if (!baseUrl)
    throw new MicroRemedError(
      "E_CONFIG",
      `${id} needs the URL of an OpenAI-compatible server`,
      `pass --base-url URL (e.g. --base-url http://127.0.0.1:8000/v1) or set ${provider.baseUrlVariable}`,
    );

  // --base-url names the server: whatever the id's family, it is asked as an OpenAI-compatible
  // one (a local vLLM serving Qwen is not DashScope), with the family's key if one is set
  // (a family that is a local server already, vllm/ or ollama/, is only moved)
  const redirected =
    Boolean(opts.baseUrl) && !match.unrouted && !provider.keyOptional && opts.baseUrl !== provider.baseUrl;
  const keyVariable = keyVariableFor(match, env);
  if (!keyVariable && !provider.keyOptional && !redirected)
    throw new MicroRemedError(
      "E_MISSING_API_KEY",
      `${id} needs an API key for ${providerName} and none is set`,
      `set ${provider.keyVariables.join(" or ")}`,
    );

  const settings: ProviderSettings = {
    id,
    apiModel: match.apiModel,
    providerName,
    baseUrl,
    apiKey: keyVariable ? env[keyVariable] : undefined,
    keyVariable,
    keyVariables: provider.keyVariables,
    tools: opts.tools ?? entry.tools,
    maxOutputTokens: entry.maxOutputTokens,
    prices: entry.prices,
    timeoutMs: reg.defaults.requestTimeoutMs,
    retry: { ...reg.defaults.retry, ...opts.retry },
    clock: { ...realClock, ...opts.clock },
    ...(match.unrouted
      ? {
          notice: `model "${id}" is in no entry of the model registry: asking the OpenAI-compatible server at ${baseUrl}${opts.baseUrl || fromVariable ? "" : " (where the reference sends such names; --base-url URL chooses another)"}`,
        }
      : redirected
        ? {
            notice: `model "${id}": asking the OpenAI-compatible server of --base-url at ${baseUrl} for "${match.apiModel}", not ${providerName}${keyVariable ? ` (with the key in ${keyVariable})` : ""}`,
          }
        : {}),
  };
  if (redirected) return new CompatibleChatModel(settings);
  switch (provider.api) {
    case "openai":
      return new OpenAIChatModel(settings);
    case "anthropic":
      return new AnthropicModel(settings);
    case "openai-compatible":
      return new CompatibleChatModel(settings);
  }
}
