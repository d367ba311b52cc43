// A failure of the run met while a method acts (the provider after all retries, a missing tool)
// becomes data on the case: an error with its reason, never the model's failure.
import { isMicroRemedError } from "../errors.js";
import type { MethodError } from "./types.js";

export function methodError(e: unknown): MethodError {
  if (isMicroRemedError(e)) return { reason: e.reason ?? "harness", message: e.oneLine() };
  return { reason: "harness", message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
}
