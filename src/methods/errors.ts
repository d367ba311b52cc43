// A failure of the run met while a method acts (the provider after all retries, a missing tool)
// becomes data on the case: an error with its reason, never the model's failure.
import type { ExecutionResult } from "../ansible/executor.js";
import { errorLine, reasonOf } from "../errors.js";
import { type ErrorReason, isRunError, type ReasonCode } from "../outcome.js";
import type { MethodError } from "./types.js";

export function methodError(e: unknown): MethodError {
  return { reason: reasonOf(e), message: errorLine(e) };
}

/** A cause of the run's class (outcome.ts): the run failed, not the answer. */
const runCause = (c: ReasonCode | undefined): c is ErrorReason => c !== undefined && isRunError(c);

/** A playbook run that failed because of the harness's tools: the method stops, the case is an error. */
export function executionError(e: ExecutionResult | undefined): MethodError | undefined {
  const cause = e?.cause;
  if (!runCause(cause)) return undefined;
  return { reason: cause, message: e?.problems.join("; ") || cause };
}

/** An external agent that could not run (not started, no sandbox, Ctrl-C): an error of the run. */
export function agentError(cause: ReasonCode | undefined, stderr: string): MethodError | undefined {
  if (!runCause(cause)) return undefined;
  return { reason: cause, message: `the agent could not run: ${stderr.trim().slice(-300)}` };
}
