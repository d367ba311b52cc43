// What an exec upgrade asks for (pod, container, command, which streams), whichever transport
// carries it (WebSocket or SPDY), and the Status a session ends with.
import type { KObject } from "../../core/types.js";

export interface Target {
  pod: KObject;
  container: string;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** The Status that ends a v4/v5 session: Success, or the exit code in details.causes. */
export function exitStatus(command: string[], code: number): Record<string, unknown> {
  if (code === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  };
}
