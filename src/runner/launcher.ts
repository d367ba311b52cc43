// The agent role for cmd: methods: an external agent's command line runs under /bin/sh in the
// same sandbox as a playbook (read-only system, private HOME and /tmp, the case folder the only
// writable path, no network but the cluster's API through the proxy, an allowlisted environment),
// as the case's identity, with the diagnosis report on stdin and a time limit.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { runCommand } from "../ansible/process.js";
import type { AgentLauncher, AgentRun, LaunchExtras } from "../methods/types.js";
import { openSandbox } from "../sandbox/session.js";
import type { SandboxMode } from "../sandbox/support.js";

export interface LauncherOptions {
  mode: SandboxMode;
  /** The case's identity (the proxy outside holds its token). */
  kubeconfig: string;
  caseDir: string;
  /** Wall ms before the agent is killed. */
  timeoutMs: number;
}

/**
 * Words of the command that name files here (./agent.sh, my_agent.py) become absolute paths,
 * readable in the sandbox: inside it the working directory is the case's folder.
 */
export function hostPaths(command: string): { command: string; paths: string[] } {
  const paths: string[] = [];
  const words = command.split(/(\s+)/).map((w) => {
    if (!w.trim() || w.startsWith("-") || !/[/.]/.test(w) || !existsSync(w)) return w;
    const abs = resolve(w);
    paths.push(abs);
    return abs;
  });
  return { command: words.join(""), paths };
}

export class SandboxLauncher implements AgentLauncher {
  constructor(private readonly o: LauncherOptions) {}

  async launch(
    command: string,
    input: string,
    signal?: AbortSignal,
    onWaiting?: (waiting: boolean) => void,
    extras: LaunchExtras = {},
  ): Promise<AgentRun> {
    const started = Date.now();
    const { command: line, paths } = extras.verbatim ? { command, paths: [] } : hostPaths(command);
    let sandbox: Awaited<ReturnType<typeof openSandbox>>;
    try {
      sandbox = await openSandbox({
        mode: this.o.mode,
        workDir: this.o.caseDir,
        kubeconfig: this.o.kubeconfig,
        readOnly: [...paths, ...(extras.readOnly ?? [])],
        relays: extras.relays,
        onWaiting,
      });
    } catch (e) {
      return {
        stdout: "",
        stderr: `the sandbox could not start: ${(e as Error).message}`,
        timedOut: false,
        cause: "sandbox",
        durationMs: Date.now() - started,
      };
    }
    try {
      const end = await runCommand(sandbox.command("/bin/sh", ["-c", line], extras.env), {
        cwd: this.o.caseDir,
        timeoutMs: this.o.timeoutMs,
        signal,
        bwrap: sandbox.mode === "bwrap",
        input,
      });
      const cause = end.timedOut
        ? "timeout"
        : end.interrupted
          ? "interrupted"
          : end.sandboxFailed
            ? "sandbox"
            : end.notStarted
              ? "tool-missing"
              : undefined;
      return {
        exitCode: end.exitCode,
        stdout: end.stdout,
        stderr: end.notStarted || end.sandboxFailed ? end.output : end.stderr,
        timedOut: end.timedOut,
        ...(cause ? { cause } : {}),
        durationMs: Date.now() - started,
        cpuMs: end.cpuMs,
        waitedMs: sandbox.waitedMs(),
      };
    } finally {
      await sandbox.close();
    }
  }
}
