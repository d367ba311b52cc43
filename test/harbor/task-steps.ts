// Running a Harbor task folder's steps without a container, in the order Harbor runs them: the
// image's entrypoint (the embedded cluster, the case started), then solution/solve.sh (Harbor's
// oracle agent) or nothing (noop), then tests/test.sh (the verifier); the reward is read from
// reward.json as Harbor reads it. The image's fixed paths are pointed at a temporary folder
// through the variables the scripts read, and `microremed` on PATH is this build's CLI.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { CLI, ROOT } from "../cli/cli-helpers.js";

export interface TaskRun {
  root: string;
  env: NodeJS.ProcessEnv;
  /** The agent's kubeconfig, as its shell has it. */
  agentKubeconfig: string;
  state: string;
  workdir: string;
  logs: string;
}

/** A temporary root for one task's run, with `microremed` (this build) first on PATH. */
export function taskRoot(taskDir: string): TaskRun {
  const root = mkdtempSync(join(tmpdir(), "mr-harbor-"));
  const bin = join(root, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "microremed"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "microremed"), 0o755);
  const run = {
    root,
    state: join(root, "state"),
    workdir: join(root, "app"),
    logs: join(root, "logs", "verifier"),
    agentKubeconfig: join(root, "home", ".kube", "config"),
  };
  return {
    ...run,
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      MICROREMED_TASK_DIR: join(taskDir, "environment", "task"),
      MICROREMED_TASK_STATE: run.state,
      MICROREMED_TASK_WORKDIR: run.workdir,
      MICROREMED_AGENT_HOME: join(root, "home"),
      MICROREMED_TASK_LOGS: run.logs,
    },
  };
}

const sh = (script: string, args: string[], r: TaskRun, env: NodeJS.ProcessEnv = r.env) =>
  execa("bash", [script, ...args], {
    env,
    extendEnv: false,
    cwd: r.workdir,
    reject: false,
    timeout: 600_000,
  });

/** The entrypoint, with `true` as the container's command. */
export async function startTask(taskDir: string, r: TaskRun) {
  mkdirSync(r.workdir, { recursive: true });
  return sh(join(taskDir, "environment", "task", "entrypoint.sh"), ["true"], r);
}

/** solve.sh as the agent runs it: its KUBECONFIG is the agent's. */
export function solveTask(taskDir: string, r: TaskRun) {
  return sh(join(taskDir, "solution", "solve.sh"), [], r, { ...r.env, KUBECONFIG: r.agentKubeconfig });
}

export interface Verified {
  /** reward.json, as Harbor reads it. */
  reward: Record<string, number>;
  /** The score's reason (score.json), for a failed expectation's message. */
  why: string;
}

export async function verifyTask(taskDir: string, r: TaskRun): Promise<Verified> {
  const v = await sh(join(taskDir, "tests", "test.sh"), [], r);
  if (v.exitCode !== 0) throw new Error(`test.sh exited ${v.exitCode}: ${v.stderr}`);
  return {
    reward: JSON.parse(readFileSync(join(r.logs, "reward.json"), "utf8")),
    why: JSON.parse(readFileSync(join(r.logs, "score.json"), "utf8")).score.reason,
  };
}

/** Stop the embedded cluster the entrypoint started (its own process group) and remove the folder. */
export function endTask(r: TaskRun) {
  try {
    const pid = Number(readFileSync(join(r.state, "sim.pid"), "utf8"));
    process.kill(-pid, "SIGTERM");
  } catch {
    // never started, or already gone
  }
  rmSync(r.root, { recursive: true, force: true });
}

/** The whole task: start, solve or not, verify. */
export async function runTask(taskDir: string, solve: boolean): Promise<Verified> {
  const r = taskRoot(taskDir);
  try {
    const s = await startTask(taskDir, r);
    if (s.exitCode !== 0) throw new Error(`entrypoint exited ${s.exitCode}: ${s.stderr}`);
    if (solve) {
      const o = await solveTask(taskDir, r);
      if (o.exitCode !== 0) throw new Error(`solve.sh exited ${o.exitCode}: ${o.stdout}\n${o.stderr}`);
    }
    return await verifyTask(taskDir, r);
  } finally {
    endTask(r);
  }
}

/** A task.toml as Harbor reads it, through Python's own TOML parser (tomllib, Python 3.11+). */
export async function readToml(file: string): Promise<Record<string, unknown>> {
  const r = await execa(
    "python3",
    ["-c", "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))", file],
    { cwd: ROOT },
  );
  return JSON.parse(r.stdout);
}

/** The case a task folder starts (its environment/task/case.json). */
export const caseOf = (taskDir: string) =>
  JSON.parse(readFileSync(join(taskDir, "environment", "task", "case.json"), "utf8")) as {
    faults: { failure: string; target: string }[];
  };
