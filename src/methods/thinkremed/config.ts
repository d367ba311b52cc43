// ThinkRemed's definition (methods/ThinkRemed.yaml) read into the limits and prompts the loop
// uses. Missing prompts are a broken installation, reported when the method is created.
import { MicroRemedError } from "../../errors.js";
import type { ProbeLimits } from "../../probe/index.js";
import { fill, type MethodDefinition } from "../definition.js";

const PROMPTS = [
  "reminder",
  "playbookReceived",
  "probeBudgetSpent",
  "probeUnavailable",
  "reflection",
] as const;
export type PromptName = (typeof PROMPTS)[number];

export interface ThinkRemedConfig {
  maxAttempts: number;
  maxProbeRounds: number;
  maxCoordinatorTurns: number;
  reflectionOutputChars: number;
  /** A prompt of the definition, filled with the case's variables and `extra`. */
  prompt(name: PromptName, extra?: Record<string, string>): string;
}

export function checkDefinition(def: MethodDefinition): void {
  const missing = PROMPTS.filter((p) => typeof def.prompts?.[p] !== "string");
  const names = def.tools.map((t) => t.name);
  if (missing.length || !names.includes("print_playbook") || !names.includes("probe_system"))
    throw new MicroRemedError(
      "E_UNKNOWN_METHOD",
      `the ThinkRemed definition lacks ${[...missing.map((m) => `prompts.${m}`), ...["print_playbook", "probe_system"].filter((n) => !names.includes(n)).map((n) => `the tool ${n}`)].join(", ")}`,
      "restore methods/ThinkRemed.yaml from the repository",
    );
}

export function probeLimitsFrom(def: MethodDefinition): Partial<ProbeLimits> {
  const l = def.limits;
  return {
    ...(l.probeTimeoutSeconds ? { timeoutSeconds: l.probeTimeoutSeconds } : {}),
    ...(l.probeMaxOutput ? { maxOutput: l.probeMaxOutput } : {}),
    ...(l.probeMaxCommands ? { maxCommands: l.probeMaxCommands } : {}),
  };
}

/** T_max as the definition gives it (the runner's --max-attempts overrides it per run). */
export function definedMaxAttempts(def: MethodDefinition): number {
  const n = def.limits.maxAttempts;
  if (n === undefined || !Number.isInteger(n) || n < 1)
    throw new MicroRemedError(
      "E_UNKNOWN_METHOD",
      `the ThinkRemed definition's limits.maxAttempts must be a whole number of at least 1 (T_max), got ${n}`,
      "set limits.maxAttempts in methods/ThinkRemed.yaml",
    );
  return n;
}

/** The configuration for one case; maxAttempts is the T_max the runner resolved. */
export function configure(
  def: MethodDefinition,
  vars: Record<string, string>,
  maxAttempts: number,
): ThinkRemedConfig {
  const l = def.limits;
  const maxProbeRounds = l.maxProbeRounds ?? 5;
  const base = { ...vars, maxProbeRounds: String(maxProbeRounds) };
  return {
    maxAttempts,
    maxProbeRounds,
    maxCoordinatorTurns: l.maxCoordinatorTurns ?? maxProbeRounds + 3,
    reflectionOutputChars: l.reflectionOutputChars ?? 3000,
    prompt: (name, extra = {}) => fill(def.prompts?.[name] ?? "", { ...base, ...extra }).trim(),
  };
}
