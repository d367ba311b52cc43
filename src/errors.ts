// Errors a user can cause or meet, each with a stable code and a message that says what to do.
// The CLI prints them as one line at one boundary (src/cli/main.ts); anything else is a defect
// and is printed with its stack.

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

/**
 * Why a case ended as an error of the run rather than a failure of the model: the provider, a
 * tool or the cluster failed. Errors are left out of the success rate and re-run on resume.
 */
export type ErrorReason =
  | "timeout"
  | "rate-limit"
  | "outage"
  | "empty-reply"
  | "malformed-reply"
  | "auth"
  | "rejected"
  | "tool-missing"
  | "sandbox"
  | "cluster"
  | "unreachable"
  | "interrupted"
  | "harness";

export class MicroRemedError extends Error {
  /** Set where the error ends a case as an error of the run (see ErrorReason). */
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
