// MicroRemed's version, as package.json says it: what `--version` prints, the MCP server calls
// itself, and a trajectory names as the harness's (agent.version). Read once, when first asked.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "./paths.js";

let version: string | undefined;

export function packageVersion(): string {
  if (version) return version;
  const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version?: unknown };
  if (typeof pkg.version !== "string" || !pkg.version)
    throw new Error(`${join(packageRoot(), "package.json")} has no version`);
  version = pkg.version;
  return version;
}
