// The model registry (models/registry.yaml): which ids run through which API, key, base URL,
// limits and prices. Data, so users can add a model or fix a price without touching code.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { MicroRemedError } from "../errors.js";
import { packageRoot } from "../util/paths.js";
import { validateWith } from "../util/schema.js";
import type { RetryPolicy } from "./retry.js";

export type ProviderApi = "openai" | "anthropic" | "openai-compatible";

/** USD per million tokens. */
export interface Prices {
  input: number;
  output: number;
  /** Prompt-cache reads (default: the input price). */
  cached?: number;
  /** Anthropic cache creation (default: the input price). */
  cacheWrite?: number;
}

export interface ProviderDef {
  api: ProviderApi;
  baseUrl?: string;
  /** A variable that overrides baseUrl (required when baseUrl is absent). */
  baseUrlVariable?: string;
  keyVariables: string[];
  /** Local servers: a key is sent when one is set, but none is needed. */
  keyOptional?: boolean;
}

export interface ModelEntry {
  id?: string;
  aliases?: string[];
  prefix?: string;
  stripPrefix?: boolean;
  apiModel?: string;
  provider: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  tools: "native" | "text";
  prices?: Prices;
}

export interface Registry {
  defaults: {
    retry: RetryPolicy;
    requestTimeoutMs: number;
    /** Where an id that no entry routes goes (the reference: a local OpenAI-compatible server). */
    unrouted?: { provider: string; tools: "native" | "text" };
  };
  providers: Record<string, ProviderDef>;
  models: ModelEntry[];
}

export interface CatalogMatch {
  entry: ModelEntry;
  providerName: string;
  provider: ProviderDef;
  /** The model name sent to the API. */
  apiModel: string;
  /** No entry routes the id: it goes to the registry's `unrouted` provider. */
  unrouted?: boolean;
}

const num = { type: "number", minimum: 0 };
const int = { type: "integer", minimum: 1 };
const SCHEMA = {
  type: "object",
  required: ["defaults", "providers", "models"],
  additionalProperties: false,
  properties: {
    defaults: {
      type: "object",
      required: ["retry", "requestTimeoutMs"],
      additionalProperties: false,
      properties: {
        retry: {
          type: "object",
          required: ["maxAttempts", "baseDelayMs", "maxDelayMs", "maxTotalMs"],
          additionalProperties: false,
          properties: { maxAttempts: int, baseDelayMs: num, maxDelayMs: num, maxTotalMs: num },
        },
        requestTimeoutMs: int,
        unrouted: {
          type: "object",
          required: ["provider", "tools"],
          additionalProperties: false,
          properties: { provider: { type: "string" }, tools: { enum: ["native", "text"] } },
        },
      },
    },
    providers: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["api", "keyVariables"],
        additionalProperties: false,
        properties: {
          api: { enum: ["openai", "anthropic", "openai-compatible"] },
          baseUrl: { type: "string", pattern: "^https?://" },
          baseUrlVariable: { type: "string", pattern: "^[A-Z_][A-Z0-9_]*$" },
          keyVariables: { type: "array", items: { type: "string", pattern: "^[A-Z_][A-Z0-9_]*$" } },
          keyOptional: { type: "boolean" },
        },
      },
    },
    models: {
      type: "array",
      items: {
        type: "object",
        required: ["provider", "tools"],
        additionalProperties: false,
        properties: {
          id: { type: "string", minLength: 1 },
          aliases: { type: "array", items: { type: "string", minLength: 1 } },
          prefix: { type: "string", minLength: 1 },
          stripPrefix: { type: "boolean" },
          apiModel: { type: "string", minLength: 1 },
          provider: { type: "string" },
          contextWindow: int,
          maxOutputTokens: int,
          tools: { enum: ["native", "text"] },
          prices: {
            type: "object",
            required: ["input", "output"],
            additionalProperties: false,
            properties: { input: num, output: num, cached: num, cacheWrite: num },
          },
        },
      },
    },
  },
};

const FIX = "see the comments at the top of models/registry.yaml for the format";

/** What ajv cannot say: references between parts, and one way to match per entry. */
function check(reg: Registry, file: string): Registry {
  const bad = (what: string) => new MicroRemedError("E_CONFIG", `${file} is invalid: ${what}`, FIX);
  for (const [name, p] of Object.entries(reg.providers)) {
    if (!p.baseUrl && !p.baseUrlVariable) throw bad(`provider ${name} needs baseUrl or baseUrlVariable`);
  }
  const unrouted = reg.defaults.unrouted?.provider;
  if (unrouted && !reg.providers[unrouted])
    throw bad(
      `/defaults/unrouted: unknown provider "${unrouted}" (known: ${Object.keys(reg.providers).join(", ")})`,
    );
  reg.models.forEach((e, i) => {
    const where = `/models/${i}`;
    if (Boolean(e.id) === Boolean(e.prefix)) throw bad(`${where}: give exactly one of id and prefix`);
    if (e.stripPrefix && !e.prefix) throw bad(`${where}: stripPrefix needs a prefix`);
    if ((e.apiModel || e.aliases) && !e.id) throw bad(`${where}: apiModel and aliases go with an id`);
    const p = reg.providers[e.provider];
    if (!p)
      throw bad(
        `${where}: unknown provider "${e.provider}" (known: ${Object.keys(reg.providers).join(", ")})`,
      );
    // Anthropic's API requires max_tokens on every request.
    if (p.api === "anthropic" && !e.maxOutputTokens)
      throw bad(`${where}: Anthropic models need maxOutputTokens`);
  });
  return reg;
}

export function registryFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.MICROREMED_MODEL_REGISTRY || join(packageRoot(), "models", "registry.yaml");
}

const cache = new Map<string, Registry>();

export function loadRegistry(file = registryFile()): Registry {
  const hit = cache.get(file);
  if (hit) return hit;
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new MicroRemedError(
      "E_CONFIG",
      `cannot read the model registry ${file}: ${(e as Error).message}`,
      FIX,
    );
  }
  const reg = check(validateWith<Registry>(SCHEMA, raw, file, "E_CONFIG", FIX), file);
  cache.set(file, reg);
  return reg;
}

/** Exact id or alias first; otherwise the longest prefix, case-insensitively. */
export function matchModel(reg: Registry, id: string): CatalogMatch | undefined {
  const lower = id.toLowerCase();
  let entry = reg.models.find((e) => e.id === id || e.aliases?.includes(id));
  if (!entry) {
    // A routing prefix (stripPrefix) needs a model name after it; a family prefix matches itself.
    const byPrefix = reg.models.filter(
      (e) =>
        e.prefix &&
        lower.startsWith(e.prefix.toLowerCase()) &&
        (!e.stripPrefix || lower.length > e.prefix.length),
    );
    entry = byPrefix.sort((a, b) => (b.prefix?.length ?? 0) - (a.prefix?.length ?? 0))[0];
  }
  if (!entry) return undefined;
  const apiModel = entry.apiModel ?? (entry.stripPrefix && entry.prefix ? id.slice(entry.prefix.length) : id);
  return { entry, providerName: entry.provider, provider: reg.providers[entry.provider], apiModel };
}

/**
 * An id no entry routes, sent where the registry's `defaults.unrouted` says (as the reference sends
 * any name it does not know to a local server). Undefined for ids that name nothing: empty, or a
 * routing prefix without its model (`vllm/`, `openai-compatible:`).
 */
export function unroutedMatch(reg: Registry, id: string): CatalogMatch | undefined {
  const to = reg.defaults.unrouted;
  if (!to || !id.trim()) return undefined;
  const lower = id.toLowerCase();
  if (reg.models.some((e) => e.stripPrefix && e.prefix?.toLowerCase() === lower)) return undefined;
  const entry: ModelEntry = { provider: to.provider, tools: to.tools };
  return {
    entry,
    providerName: to.provider,
    provider: reg.providers[to.provider],
    apiModel: id,
    unrouted: true,
  };
}

/** How an entry is written in listings and errors: `gpt-4o*`, `vllm/<model>`, `o3`. */
export function entryLabel(e: ModelEntry): string {
  if (e.id) return e.id;
  return e.stripPrefix ? `${e.prefix}<model>` : `${e.prefix}*`;
}

/** The families for an "unknown model" message: entries not already covered by a shorter prefix of the same provider. */
export function modelFamilies(reg: Registry = loadRegistry()): string[] {
  const key = (e: ModelEntry) => (e.id ?? e.prefix ?? "").toLowerCase();
  const covered = (e: ModelEntry) =>
    reg.models.some(
      (o) =>
        o !== e &&
        o.prefix &&
        o.provider === e.provider &&
        o.prefix.length < key(e).length &&
        key(e).startsWith(o.prefix.toLowerCase()),
    );
  return [...new Set(reg.models.filter((e) => !covered(e)).map(entryLabel))];
}
