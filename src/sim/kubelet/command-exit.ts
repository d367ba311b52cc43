// What the kubelet puts in a container's terminated state besides the exit code: the
// termination message, and why a process that could not start did not (StartError).

import type { ContainerRef } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import { containerExecOf } from "../exec/handler.js";
import { processesOf, startFailureOf } from "./command.js";

/** kubecontainer's limits: the file is read up to 4 KiB; the log fallback is 80 lines, 2 KiB. */
const MAX_MESSAGE = 4096;
const LOG_LINES = 80;
const LOG_BYTES = 2048;

/**
 * What the kubelet puts in `state.terminated` besides the exit code, as
 * pkg/kubelet/kuberuntime/kuberuntime_container.go (getTerminationMessage) does: the file at
 * terminationMessagePath, else, with FallbackToLogsOnError and a failed exit, the tail of the log;
 * a process that never started says why (StartError).
 */
export function terminationOf(
  ctx: SimContext,
  ref: ContainerRef,
  exitCode: number,
): { reason?: string; exitCode?: number; message?: string } {
  const spec = ref.container;
  const startError =
    processesOf(ctx).exitOf(ref)?.startError ?? startFailureOf(ctx, ref.pod, spec, ref.restartCount);
  if (startError) return { reason: "StartError", exitCode: 128, message: startError };
  let message = "";
  try {
    const fs = containerExecOf(ctx).files.forContainer(ref.pod, spec, ref.restartCount);
    const path = String(spec.terminationMessagePath ?? "/dev/termination-log");
    if (fs.stat(path)) message = fs.read(path).subarray(0, MAX_MESSAGE).toString("utf8");
  } catch {
    // no file, or a directory there: no message, as the kubelet logs and moves on
  }
  if (!message && spec.terminationMessagePolicy === "FallbackToLogsOnError" && exitCode !== 0) {
    const lines = ctx.logs.logs({ pod: ref.pod, container: spec.name, tailLines: LOG_LINES }).lines;
    const text = lines.length ? `${lines.join("\n")}\n` : "";
    message = Buffer.from(text)
      .subarray(Math.max(0, Buffer.byteLength(text) - LOG_BYTES))
      .toString("utf8");
  }
  return message ? { message } : {};
}
