// The executor: saves the playbook in the case's folder, runs it with `ansible-playbook` (which
// parses all of it, as --syntax-check would, before the first task) inside the sandbox
// (src/sandbox/) as the case's identity, and returns
// what happened as data: how it ended (a named cause), each task's result (our callback plugin),
// the plain output, and warnings. Nothing is refused here: the cluster's RBAC and the sandbox are
// the guards; check.ts's findings are recorded as warnings only.
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ReasonCode } from "../outcome.js";
import { writeCaseFile } from "../sandbox/case-files.js";
import { openSandbox, type Sandbox } from "../sandbox/session.js";
import { type SandboxMode, sandboxSupport } from "../sandbox/support.js";
import { findTool, toolFolders } from "../sandbox/tools.js";
import { checkPlaybook } from "./check.js";
import { ansibleEnv, collectionPaths } from "./environment.js";
import { type ProcessEnd, runCommand } from "./process.js";
import { firstFailure, readTasks, type TaskResult } from "./tasks.js";

export type { TaskResult, TaskStatus } from "./tasks.js";

/**
 * Why a run did not end cleanly, as a reason code (outcome.ts): `invalid-playbook`, `task-failed`
 * and `timeout` are results of the playbook; `tool-missing`, `sandbox`, `interrupted` and
 * `unreachable` (ansible could not reach its host) are errors of the run.
 */
export type ExecutionCause = Extract<
  ReasonCode,
  "timeout" | "interrupted" | "tool-missing" | "invalid-playbook" | "task-failed" | "unreachable" | "sandbox"
>;

export interface ExecutionResult {
  playbookPath: string;
  /** Passed the syntax check. */
  accepted: boolean;
  ok: boolean;
  exitCode?: number;
  timedOut: boolean;
  /** Cluster-independent wall time. */
  durationMs: number;
  output: string;
  problems: string[];
  /** How it ended when not cleanly; undefined when ok. */
  cause?: ExecutionCause;
  /** Each task's result, in order (from our callback plugin). */
  tasks: TaskResult[];
  /** What check.ts noticed (another namespace named, ...): recorded, never a refusal. */
  warnings: string[];
  /** How the playbook was confined. */
  sandbox: SandboxMode;
  /** One JSON line per API request the playbook made. */
  auditLog?: string;
  /** CPU ms ansible's processes spent: its own time, not the cluster's. */
  cpuMs?: number;
  /** Wall ms during which it waited on the cluster (had a watch open through the API proxy). */
  waitedMs?: number;
}

export interface ExecuteOptions {
  caseDir: string;
  name: string;
  namespace: string;
  signal?: AbortSignal;
  /** The identity this run acts as (the case's confined kubeconfig); default: the executor's. */
  kubeconfig?: string;
  /** Told when the playbook starts and stops waiting on the cluster (a watch open). */
  onWaiting?: (waiting: boolean) => void;
}

export interface Executor {
  run(playbook: string, opts: ExecuteOptions): Promise<ExecutionResult>;
}

export interface AnsibleExecutorOptions {
  inventory: string;
  kubeconfig: string;
  /** Wall ms before the run is killed. */
  timeoutMs: number;
  ansiblePlaybook?: string;
  /** How playbooks are confined: bubblewrap or not at all (the run's --sandbox). */
  sandbox: SandboxMode;
}

export class AnsibleExecutor implements Executor {
  constructor(private readonly o: AnsibleExecutorOptions) {}

  get mode(): SandboxMode {
    return this.o.sandbox;
  }

  async run(playbook: string, given: ExecuteOptions): Promise<ExecutionResult> {
    const started = Date.now();
    // bwrap binds by absolute path, and the playbook's working folder must not depend on ours
    const opts = { ...given, caseDir: resolve(given.caseDir) };
    const playbookPath = join(opts.caseDir, `${opts.name}.yml`);
    writeCaseFile(playbookPath, playbook);
    const check = checkPlaybook(playbook, opts.namespace);
    const base = {
      playbookPath,
      accepted: false,
      ok: false,
      timedOut: false,
      output: "",
      problems: [] as string[],
      tasks: [] as TaskResult[],
      warnings: check.problems,
      sandbox: this.mode,
    };
    const finish = (r: Partial<ExecutionResult>) => this.done({ ...base, ...r }, started, opts);

    const bin = this.o.ansiblePlaybook ?? "ansible-playbook";
    const tool = findTool(bin);
    if (!tool) {
      const output = `${bin} was not found on PATH (run scripts/setup.sh, or apt-get install ansible)`;
      return finish({ exitCode: 127, cause: "tool-missing", output, problems: [output] });
    }
    if (this.mode === "bwrap") {
      const s = await sandboxSupport();
      if (!s.ok)
        return finish({ cause: "sandbox", problems: [`the sandbox cannot run: ${s.reason} (${s.fix})`] });
    }
    let sandbox: Sandbox;
    try {
      sandbox = await openSandbox({
        mode: this.mode,
        workDir: opts.caseDir,
        kubeconfig: opts.kubeconfig ?? this.o.kubeconfig,
        readOnly: collectionPaths(),
        copies: [resolve(this.o.inventory)],
        onWaiting: opts.onWaiting,
      });
    } catch (e) {
      return finish({ cause: "sandbox", problems: [`the sandbox could not start: ${(e as Error).message}`] });
    }
    const tasksFile = join(opts.caseDir, `${opts.name}.tasks.jsonl`);
    rmSync(tasksFile, { force: true });
    try {
      return finish({
        ...(await this.execute(sandbox, tool, playbookPath, tasksFile, opts)),
        waitedMs: sandbox.waitedMs(),
        auditLog: sandbox.auditLog,
        warnings: sandbox.warning ? [...base.warnings, sandbox.warning] : base.warnings,
      });
    } finally {
      await sandbox.close();
    }
  }

  private async execute(
    sandbox: Sandbox,
    tool: string,
    playbookPath: string,
    tasksFile: string,
    opts: ExecuteOptions,
  ): Promise<Partial<ExecutionResult>> {
    const env = ansibleEnv(sandbox, tasksFile);
    const pathFirst = toolFolders(tool);
    const bwrap = sandbox.mode === "bwrap";
    const inventory = resolve(this.o.inventory);
    const exec = (args: string[], timeoutMs: number) =>
      runCommand(sandbox.command(tool, args, env, pathFirst), {
        cwd: opts.caseDir,
        timeoutMs,
        signal: opts.signal,
        bwrap,
      });

    // one run: ansible parses the whole playbook before the first task (what --syntax-check
    // does) and exits 4 with its ERROR! when it cannot, so a second start-up is not needed
    const run = await exec(["-i", inventory, playbookPath], this.o.timeoutMs);
    const tasks = readTasks(tasksFile);
    const cpuMs = run.cpuMs;
    const ended = this.ended(run);
    if (ended) return { ...ended, accepted: true, tasks, cpuMs };
    if (run.exitCode !== 0 && !tasks.length && !/^PLAY \[/m.test(run.output)) {
      const error = /ERROR! (.*)/.exec(run.output)?.[1];
      return {
        exitCode: run.exitCode,
        cause: "invalid-playbook",
        output: run.output,
        cpuMs,
        problems: [`ansible-playbook could not parse the playbook${error ? `: ${error}` : ""}`],
      };
    }
    const failure = firstFailure(tasks);
    const ok = run.exitCode === 0;
    const cause = ok
      ? undefined
      : failure?.status === "unreachable" || run.exitCode === 3
        ? "unreachable"
        : "task-failed";
    return {
      accepted: true,
      ok,
      exitCode: run.exitCode,
      output: run.output,
      tasks,
      cpuMs,
      cause,
      problems:
        failure && !ok
          ? [
              `task "${failure.name}" (${failure.module}) ${failure.status}: ${failure.message.split("\n")[0]}`,
            ]
          : [],
    };
  }

  /** A run that ended without an answer from ansible: killed, interrupted, or never started. */
  private ended(p: ProcessEnd): Partial<ExecutionResult> | undefined {
    const common = { exitCode: p.exitCode, output: p.output };
    if (p.timedOut)
      return {
        ...common,
        timedOut: true,
        cause: "timeout",
        problems: [
          `ansible-playbook timed out after ${Math.round(this.o.timeoutMs / 1000)} s and was killed`,
        ],
      };
    if (p.interrupted)
      return { ...common, cause: "interrupted", problems: ["ansible-playbook was interrupted"] };
    if (p.sandboxFailed)
      return {
        ...common,
        cause: "sandbox",
        problems: [`the sandbox failed: ${p.output.trim().split("\n")[0]}`],
      };
    if (p.notStarted || p.exitCode === 127)
      return { ...common, cause: "tool-missing", problems: [`${p.output.trim().split("\n")[0]}`] };
    return undefined;
  }

  private done(
    r: Omit<ExecutionResult, "durationMs">,
    started: number,
    opts: { caseDir: string; name: string },
  ): ExecutionResult {
    const result = { ...r, durationMs: Date.now() - started };
    const lines = [...r.problems.map((p) => `problem: ${p}`), ...r.warnings.map((w) => `warning: ${w}`)];
    writeCaseFile(
      join(opts.caseDir, `${opts.name}.log`),
      `${lines.join("\n")}${lines.length ? "\n" : ""}${r.output}`,
    );
    return result;
  }
}
