// Errors a user can cause or meet, each with a stable code and a message that says what to do.
// The CLI prints them as one line at one boundary (src/cli/main.ts); anything else is a defect
// and is printed with its stack. An error that ends a case names its cause in the outcome
// vocabulary (outcome.ts): reasonOf below is the one mapping from an error to that reason.
import type { ErrorReason } from "./outcome.js";

export type ErrorCode =
  | "E_USAGE"
  | "E_CONFIG"
  | "E_EXPERIMENT_FILE"
  | "E_UNKNOWN_ENV"
  | "E_UNKNOWN_METHOD"
  | "E_UNKNOWN_MODEL"
  | "E_UNKNOWN_FAILURE"
  | "E_MISSING_API_KEY"
  | "E_MISSING_TOOL"
  | "E_CLUSTER_UNREACHABLE"
  | "E_CLUSTER"
  | "E_FORBIDDEN_NAMESPACE"
  | "E_MODEL"
  | "E_TIMEOUT"
  | "E_INTERRUPTED"
  | "E_RESUME_MISMATCH"
  | "E_PORT_IN_USE"
  | "E_SANDBOX";

export class MicroRemedError extends Error {
  /** Set where the error ends a case as an error of the run (see outcome.ts's ErrorReason). */
  readonly reason?: ErrorReason;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** What the user should do about it. */
    readonly fix?: string,
    options?: { cause?: unknown; reason?: ErrorReason },
  ) {
    super(message, options);
    this.name = "MicroRemedError";
    this.reason = options?.reason;
  }

  /** One line: code, what happened, what to do. */
  oneLine(): string {
    return `error ${this.code}: ${this.message}${this.fix ? ` (fix: ${this.fix})` : ""}`;
  }
}

export const usageError = (message: string, fix?: string) => new MicroRemedError("E_USAGE", message, fix);

export const missingTool = (tool: string, fix: string) =>
  new MicroRemedError("E_MISSING_TOOL", `${tool} was not found on PATH`, fix);

export function isMicroRemedError(e: unknown): e is MicroRemedError {
  return e instanceof MicroRemedError;
}

/** Codes that say the reason themselves: the cluster failed, or could not be reached. */
const CODE_REASONS: Partial<Record<ErrorCode, ErrorReason>> = {
  E_CLUSTER: "cluster",
  E_CLUSTER_UNREACHABLE: "unreachable",
};

/** Why an error ends a case as an error of the run: its code's reason, the one it carries, or a defect of the harness. */
export function reasonOf(e: unknown): ErrorReason {
  if (!isMicroRemedError(e)) return "harness";
  return CODE_REASONS[e.code] ?? e.reason ?? "harness";
}

/** The error as a case records it: one line for ours, the stack for a defect. */
export function errorLine(e: unknown): string {
  if (isMicroRemedError(e)) return e.oneLine();
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}
