// A failure of the run met while a method acts (the provider after all retries, a missing tool)
// becomes data on the case: an error with its reason, never the model's failure.
import type { ExecutionResult } from "../ansible/executor.js";
import { isMicroRemedError } from "../errors.js";
import type { MethodError } from "./types.js";

export function methodError(e: unknown): MethodError {
  if (isMicroRemedError(e)) return { reason: e.reason ?? "harness", message: e.oneLine() };
  return { reason: "harness", message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
}

/** Execution causes that are failures of the run's tools, not of the playbook. */
const RUN_CAUSES = ["tool-missing", "sandbox", "unreachable", "interrupted"] as const;

/** A playbook run that failed because of the harness's tools: the method stops, the case is an error. */
export function executionError(e: ExecutionResult | undefined): MethodError | undefined {
  const cause = e?.cause;
  if (!cause || !(RUN_CAUSES as readonly string[]).includes(cause)) return undefined;
  return { reason: cause as MethodError["reason"], message: e.problems.join("; ") || cause };
}
