// Runs one command of the executor (inside the sandbox or not) and says how it ended: with an
// exit code, past its time limit, interrupted, or not started at all. execa's timeout,
// cancelSignal and forceKillAfterDelay do the killing; bwrap's PID namespace and
// --die-with-parent take every child with it.
import { execa } from "execa";
import { INFO_FD } from "../sandbox/bwrap.js";
import { sandboxInit, waitExited } from "../sandbox/reap.js";
import type { SandboxCommand } from "../sandbox/session.js";

export interface ProcessEnd {
  exitCode: number;
  timedOut: boolean;
  interrupted: boolean;
  /** The program (bwrap, or the tool when unsandboxed) could not be started. */
  notStarted: boolean;
  /** bubblewrap itself refused or failed to set the sandbox up. */
  sandboxFailed: boolean;
  output: string;
}

const MAX_OUTPUT = 200_000;

export async function runCommand(
  cmd: SandboxCommand,
  o: { cwd: string; timeoutMs: number; signal?: AbortSignal; bwrap: boolean },
): Promise<ProcessEnd> {
  const child = execa(cmd.file, cmd.args, {
    env: cmd.env,
    extendEnv: false,
    cwd: o.cwd,
    all: true,
    reject: false,
    timeout: o.timeoutMs,
    cancelSignal: o.signal,
    killSignal: "SIGTERM",
    forceKillAfterDelay: 2000,
    maxBuffer: 10_000_000,
    // unsandboxed, the playbook's children share a process group, killed whole below
    detached: !o.bwrap,
    stdio: o.bwrap ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
  });
  const r = await child;
  const init = o.bwrap ? sandboxInit(String(r.stdio[INFO_FD] ?? "")) : undefined;
  // bwrap's --die-with-parent kills PID 1 now that bwrap is gone; wait until the namespace is empty
  if (init) await waitExited(init);
  if (!o.bwrap && child.pid) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is already gone
    }
  }
  const all = String(r.all ?? "");
  const notStarted = r.failed && r.code === "ENOENT";
  const output =
    all.length > MAX_OUTPUT ? `${all.slice(0, MAX_OUTPUT)}\n[output cut at ${MAX_OUTPUT} characters]` : all;
  return {
    exitCode: r.exitCode ?? (r.timedOut || r.isCanceled ? 137 : 1),
    timedOut: r.timedOut,
    interrupted: r.isCanceled,
    notStarted,
    sandboxFailed: o.bwrap && (notStarted || (r.exitCode === 1 && /^bwrap: /.test(all.trimStart()))),
    output: notStarted ? `${cmd.file} could not be started: ${r.shortMessage}` : output,
  };
}
