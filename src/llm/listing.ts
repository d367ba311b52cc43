// The registry as `microremed models` prints it: each id or family, its provider, whether its
// key is set, and its prices, so a user sees what a run will need and cost before starting it.
import { entryLabel, loadRegistry, registryFile } from "./catalog.js";

const price = (n: number | undefined) => (n === undefined ? "-" : String(n));

export function registryListing(env: NodeJS.ProcessEnv = process.env, file = registryFile(env)): string[] {
  const reg = loadRegistry(file);
  const rows = reg.models.map((e) => {
    const p = reg.providers[e.provider];
    const set = p.keyVariables.find((v) => env[v]);
    const key = set
      ? `set (${set})`
      : p.keyOptional
        ? "not needed"
        : `not set (${p.keyVariables.join(" or ")})`;
    const prices = e.prices
      ? `${price(e.prices.input)} / ${price(e.prices.output)} / ${price(e.prices.cached ?? e.prices.input)}`
      : "unknown";
    return [entryLabel(e), e.provider, e.tools, key, prices];
  });
  const header = ["model", "provider", "tools", "key", "USD per 1M in / out / cached"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ")}`;
  const to = reg.defaults.unrouted;
  const unrouted = to && reg.providers[to.provider];
  return [
    `Provider models (${file}; prices may be outdated, edit the file to correct them):`,
    line(header),
    ...rows.map(line),
    "  (an id matches its exact entry, else the longest prefix; base URLs and key variables are in the file)",
    ...(unrouted
      ? [
          `  (any other id goes to the OpenAI-compatible server at ${unrouted.baseUrl ?? `$${unrouted.baseUrlVariable}`}, as the reference sends it; --base-url URL chooses another)`,
        ]
      : []),
  ];
}
