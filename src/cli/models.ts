// `microremed models`: the models this version can run, and what each needs.
import type { Command } from "commander";
import { providerKeyStatus } from "../llm/keys.js";
import { registryListing } from "../llm/listing.js";
import { BUILTIN_MODELS } from "../llm/registry.js";

export function registerModels(program: Command) {
  program
    .command("models")
    .description("List the models MicroRemed can use")
    .action(() => {
      const lines = [
        "Built-in models:",
        ...Object.entries(BUILTIN_MODELS).map(([id, what]) => `  ${id.padEnd(18)} ${what}`),
      ];
      lines.push("", ...registryListing());
      lines.push(
        "",
        "Provider API keys:",
        ...providerKeyStatus().map(
          (k) =>
            `  ${k.provider.padEnd(10)} ${k.set ? `set (${k.variable})` : `not set (${k.variables.join(" or ")})`}`,
        ),
      );
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
