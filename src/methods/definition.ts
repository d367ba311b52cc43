// Method definitions as data (methods/<Name>.yaml): prompts, tool schemas and limits.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { MicroRemedError } from "../errors.js";
import type { ToolSchema } from "../llm/types.js";
import { packageRoot } from "../util/paths.js";
import { validateWith } from "../util/schema.js";

export interface MethodDefinition {
  name: string;
  description: string;
  system: string;
  user: string;
  tools: ToolSchema[];
  prompts?: Record<string, string>;
  limits: Record<string, number>;
}

const SCHEMA = {
  type: "object",
  required: ["name", "system", "user", "tools"],
  properties: {
    name: { type: "string" },
    description: { type: "string", default: "" },
    system: { type: "string" },
    user: { type: "string" },
    prompts: { type: "object", additionalProperties: { type: "string" } },
    tools: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "description", "parameters"],
        properties: {
          name: { type: "string" },
          description: { type: "string" },
          parameters: { type: "object" },
        },
      },
    },
    limits: { type: "object", additionalProperties: { type: "number" }, default: {} },
  },
};

export function loadMethodDefinition(name: string, dir = join(packageRoot(), "methods")): MethodDefinition {
  const file = join(dir, `${name}.yaml`);
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new MicroRemedError(
      "E_UNKNOWN_METHOD",
      `cannot read method definition ${file}: ${(e as Error).message}`,
      "reinstall, or restore methods/ from the repository",
    );
  }
  return validateWith<MethodDefinition>(
    SCHEMA,
    raw,
    file,
    "E_UNKNOWN_METHOD",
    "fix the method definition file",
  );
}

export function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => (k in vars ? vars[k] : m));
}
