// Methods by name (the reference's --remediate-method values), by module path (a user's method
// in an ES module), or as an external agent process (cmd:COMMAND, or mcp:COMMAND with an MCP server).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { MicroRemedError } from "../errors.js";
import { CommandAgent } from "./command.js";
import { McpAgent } from "./mcp.js";
import { SoloGen } from "./sologen.js";
import { ThinkRemed } from "./thinkremed/index.js";
import type { Method } from "./types.js";

const METHODS = {
  SoloGen: () => new SoloGen(),
  ThinkRemed: () => new ThinkRemed(),
} as const satisfies Record<string, () => Method>;

export const methodNames = () => Object.keys(METHODS);

const CONTRACT =
  "export default (or `method`) an object { name: string, maxAttempts?: number, remediate(ctx) } or a function returning one; see the README's 'Your own method'";

const isModulePath = (spec: string) => /^(\.{1,2}\/|\/)/.test(spec) || /\.(m?js|ts)$/.test(spec);

/** A method from an ES module: its default (or `method`) export, an object or a factory. */
async function loadModuleMethod(spec: string): Promise<Method> {
  const file = resolve(spec);
  if (!existsSync(file))
    throw new MicroRemedError("E_UNKNOWN_METHOD", `the method module ${file} does not exist`, CONTRACT);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    throw new MicroRemedError(
      "E_UNKNOWN_METHOD",
      `cannot load the method module ${file}: ${(e as Error).message}`,
      "fix the module so that `node` can import it (an ES module, .js or .mjs)",
      { cause: e },
    );
  }
  const exported = mod.default ?? mod.method;
  const made: unknown = typeof exported === "function" ? await (exported as () => unknown)() : exported;
  const m = made as Partial<Method> | undefined;
  if (!m || typeof m !== "object" || typeof m.name !== "string" || typeof m.remediate !== "function")
    throw new MicroRemedError("E_UNKNOWN_METHOD", `${file} does not export a method`, CONTRACT);
  const maxAttempts = m.maxAttempts ?? 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new MicroRemedError(
      "E_UNKNOWN_METHOD",
      `${file}: maxAttempts must be a whole number ≥ 1`,
      CONTRACT,
    );
  return {
    name: m.name,
    maxAttempts,
    probeLimits: m.probeLimits,
    remediate: (ctx) => (m as Method).remediate(ctx),
  };
}

export async function resolveMethod(spec: string): Promise<Method> {
  const agent = /^(cmd|mcp):/.exec(spec)?.[1];
  if (agent) {
    const command = spec.slice(4).trim();
    const example = agent === "cmd" ? "cmd:./examples/agent.sh" : "mcp:node examples/mcp-agent.mjs";
    if (!command)
      throw new MicroRemedError(
        "E_UNKNOWN_METHOD",
        `${agent}: names no command`,
        `give the agent's command line, e.g. --remediate-method "${example}"`,
      );
    return agent === "cmd" ? new CommandAgent(command) : new McpAgent(command);
  }
  const builtin =
    METHODS[spec as keyof typeof METHODS] ??
    Object.entries(METHODS).find(([k]) => k.toLowerCase() === spec.toLowerCase())?.[1];
  if (builtin) return builtin();
  if (isModulePath(spec)) return loadModuleMethod(spec);
  throw new MicroRemedError(
    "E_UNKNOWN_METHOD",
    `unknown remediation method "${spec}"`,
    `use one of: ${methodNames().join(", ")}, a module path (./my-method.js), cmd:<command> or mcp:<command>`,
  );
}
