// What a call cost, from the registry's prices and the usage the provider reported.
import type { Prices } from "./catalog.js";
import { type ChatMessage, estimateTokens, type Usage } from "./types.js";

/** USD; undefined when the registry has no prices for the model (unknown, not free). */
export function costUsd(u: Usage, prices: Prices | undefined): number | undefined {
  if (!prices) return undefined;
  const cached = u.cachedTokens ?? 0;
  const written = u.cacheWriteTokens ?? 0;
  // inputTokens includes the cached and cache-written parts (see Usage); bill each at its price.
  const fresh = Math.max(0, u.inputTokens - cached - written);
  const usd =
    fresh * prices.input +
    cached * (prices.cached ?? prices.input) +
    written * (prices.cacheWrite ?? prices.input) +
    u.outputTokens * prices.output;
  return usd / 1_000_000;
}

/** Only for servers that report no usage at all: the reference's characters / 4, flagged. */
export function estimatedUsage(sent: ChatMessage[], reply: ChatMessage): Usage {
  const text = (m: ChatMessage) => m.content + (m.toolCalls?.map((c) => c.name + c.arguments).join("") ?? "");
  return {
    inputTokens: estimateTokens(sent.map(text).join("\n")),
    outputTokens: estimateTokens(text(reply)),
    estimated: true,
  };
}
