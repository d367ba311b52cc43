// Runs one command of the executor (inside the sandbox or not) and says how it ended: with an
// exit code, past its time limit, interrupted, or not started at all. execa's timeout,
// cancelSignal and forceKillAfterDelay do the killing; bwrap's PID namespace and
// --die-with-parent take every child with it.
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { INFO_FD } from "../sandbox/bwrap.js";
import { readCaseFile } from "../sandbox/case-files.js";
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
  /** stdout and stderr interleaved, as a terminal shows them. */
  output: string;
  stdout: string;
  stderr: string;
  /** CPU ms of the command and its children (undefined where it could not be read). */
  cpuMs?: number;
}

/** CPU ms of this process's waited-for children: /proc/self/stat cutime + cstime (USER_HZ = 100). */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return undefined;
  }
}

let runs = 0;

const MAX_OUTPUT = 200_000;

export async function runCommand(
  cmd: SandboxCommand,
  o: { cwd: string; timeoutMs: number; signal?: AbortSignal; bwrap: boolean; input?: string },
): Promise<ProcessEnd> {
  // in bubblewrap the sandbox's own init reaps the command, so its launcher reports the CPU time
  // (into the writable cwd); unsandboxed, this process reaps it and the kernel counts it here
  // named relative to the launcher's working directory (the case folder, wherever it is inside)
  const usageName = `.rusage-${process.pid}-${++runs}`;
  const usageFile = join(o.cwd, usageName);
  const argsFd = cmd.argsFile ? openSync(cmd.argsFile, "r") : undefined;
  // Node's spawn passes a file descriptor through as is; execa's types leave one beyond stderr out
  const optionsFd = (argsFd ?? "ignore") as unknown as "ignore";
  const cpu0 = o.bwrap ? undefined : childrenCpuMs();
  const child = execa(cmd.file, cmd.args, {
    env: o.bwrap ? { ...cmd.env, RUSAGE_FILE: usageName } : cmd.env,
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
    stdio: o.bwrap
      ? [o.input === undefined ? "ignore" : "pipe", "pipe", "pipe", "pipe", optionsFd]
      : [o.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    ...(o.input === undefined ? {} : { input: o.input }),
  });
  const r = await child.finally(() => argsFd !== undefined && closeSync(argsFd));
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
  let cpuMs: number | undefined;
  if (o.bwrap) {
    try {
      // in the case folder, where the playbook could have left a FIFO or a link instead
      const text = readCaseFile(usageFile).trim();
      cpuMs = text ? Number(text) : undefined;
    } catch {
      cpuMs = undefined;
    }
    rmSync(usageFile, { force: true });
  } else {
    const cpu1 = childrenCpuMs();
    cpuMs = cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0;
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
    stdout: String(r.stdout ?? ""),
    stderr: String(r.stderr ?? ""),
    cpuMs: Number.isFinite(cpuMs) ? cpuMs : undefined,
  };
}
