// The executor: saves the playbook in the case's folder, checks it, runs
// `ansible-playbook --syntax-check`, then `ansible-playbook -i inventory.ini` with the cluster's
// kubeconfig in its environment. A timeout kills the whole process group. Output is kept.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { checkPlaybook } from "./check.js";

export interface ExecutionResult {
  playbookPath: string;
  /** Passed the checks and the syntax check. */
  accepted: boolean;
  ok: boolean;
  exitCode?: number;
  timedOut: boolean;
  /** Cluster-independent wall time. */
  durationMs: number;
  output: string;
  problems: string[];
}

export interface Executor {
  run(
    playbook: string,
    opts: { caseDir: string; name: string; namespace: string; signal?: AbortSignal },
  ): Promise<ExecutionResult>;
}

export interface AnsibleExecutorOptions {
  inventory: string;
  kubeconfig: string;
  /** Wall ms before the run is killed. */
  timeoutMs: number;
  ansiblePlaybook?: string;
}

const MAX_OUTPUT = 200_000;

export class AnsibleExecutor implements Executor {
  constructor(private readonly o: AnsibleExecutorOptions) {}

  async run(
    playbook: string,
    opts: { caseDir: string; name: string; namespace: string; signal?: AbortSignal },
  ): Promise<ExecutionResult> {
    const started = Date.now();
    const playbookPath = join(opts.caseDir, `${opts.name}.yml`);
    writeFileSync(playbookPath, playbook);
    const base = { playbookPath, timedOut: false, exitCode: undefined as number | undefined };
    const check = checkPlaybook(playbook, opts.namespace);
    if (!check.ok)
      return this.done(
        { ...base, accepted: false, ok: false, output: "", problems: check.problems },
        started,
        opts,
      );
    // ansible's module payloads go to a folder of the case that is removed afterwards, so a
    // playbook killed on timeout leaves nothing behind in /tmp
    const tmp = mkdtempSync(join(tmpdir(), "microremed-ansible-"));
    try {
      return await this.runChecked(playbookPath, opts, started, base, tmp);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  private async runChecked(
    playbookPath: string,
    opts: { caseDir: string; name: string; namespace: string; signal?: AbortSignal },
    started: number,
    base: { playbookPath: string; timedOut: boolean; exitCode: number | undefined },
    tmp: string,
  ): Promise<ExecutionResult> {
    const env = {
      TMPDIR: tmp,
      ANSIBLE_LOCAL_TEMP: join(tmp, "local"),
      ANSIBLE_REMOTE_TEMP: join(tmp, "remote"),
      KUBECONFIG: this.o.kubeconfig,
      K8S_AUTH_KUBECONFIG: this.o.kubeconfig,
      ANSIBLE_NOCOLOR: "1",
      ANSIBLE_FORCE_COLOR: "0",
      ANSIBLE_RETRY_FILES_ENABLED: "0",
      ANSIBLE_HOST_KEY_CHECKING: "0",
      ANSIBLE_LOCALHOST_WARNING: "0",
      ANSIBLE_INVENTORY_UNPARSED_WARNING: "0",
      ANSIBLE_DEPRECATION_WARNINGS: "0",
    };
    const bin = this.o.ansiblePlaybook ?? "ansible-playbook";
    const syntax = await this.exec(
      bin,
      ["--syntax-check", "-i", this.o.inventory, playbookPath],
      env,
      Math.min(this.o.timeoutMs, 120_000),
      opts.signal,
    );
    if (syntax.exitCode !== 0) {
      return this.done(
        {
          ...base,
          accepted: false,
          ok: false,
          exitCode: syntax.exitCode,
          timedOut: syntax.timedOut,
          output: syntax.output,
          problems: ["ansible-playbook --syntax-check failed"],
        },
        started,
        opts,
      );
    }
    const run = await this.exec(
      bin,
      ["-i", this.o.inventory, playbookPath],
      env,
      this.o.timeoutMs,
      opts.signal,
    );
    return this.done(
      {
        ...base,
        accepted: true,
        ok: run.exitCode === 0 && !run.timedOut,
        exitCode: run.exitCode,
        timedOut: run.timedOut,
        output: run.output,
        problems: run.timedOut
          ? [`ansible-playbook timed out after ${Math.round(this.o.timeoutMs / 1000)} s and was killed`]
          : [],
      },
      started,
      opts,
    );
  }

  private done(
    r: Omit<ExecutionResult, "durationMs">,
    started: number,
    opts: { caseDir: string; name: string },
  ): ExecutionResult {
    const result = { ...r, durationMs: Date.now() - started };
    writeFileSync(
      join(opts.caseDir, `${opts.name}.log`),
      `${r.problems.map((p) => `problem: ${p}`).join("\n")}${r.problems.length ? "\n" : ""}${r.output}`,
    );
    return result;
  }

  private async exec(
    bin: string,
    args: string[],
    env: Record<string, string>,
    timeoutMs: number,
    signal?: AbortSignal,
  ) {
    // detached: the playbook's children (kubectl, python) form one process group we can kill whole
    const child = execa(bin, args, {
      env,
      extendEnv: true,
      all: true,
      reject: false,
      detached: true,
      stdin: "ignore",
      maxBuffer: 10_000_000,
    });
    let timedOut = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    signal?.addEventListener("abort", killGroup, { once: true });
    const r = await child;
    clearTimeout(timer);
    signal?.removeEventListener("abort", killGroup);
    if (r.failed && r.code === "ENOENT") {
      return {
        exitCode: 127,
        timedOut,
        output: `${bin} was not found on PATH (run scripts/setup.sh, or apt-get install ansible)`,
      };
    }
    const all = String(r.all ?? "");
    return {
      exitCode: r.exitCode ?? (timedOut ? 137 : 1),
      timedOut,
      output:
        all.length > MAX_OUTPUT
          ? `${all.slice(0, MAX_OUTPUT)}\n[output cut at ${MAX_OUTPUT} characters]`
          : all,
    };
  }
}
