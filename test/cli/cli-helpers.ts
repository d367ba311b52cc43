// Helpers for the CLI tests: the built CLI run with execa, `microremed sim` started in the
// background (its kubeconfig lets a test look at the cluster with kubectl after a run ends), and
// readers for what a run records. Every test drives MicroRemed only through its command line.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { V1Deployment, V1ObjectMeta, V1Pod } from "@kubernetes/client-node";
import { execa, type ResultPromise } from "execa";
import type { ExpectStatic } from "vitest";
import { stringify } from "yaml";
import type { CaseRecord } from "../../src/runlog/records.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = join(ROOT, "dist/src/cli/main.js");

export function checkBuilt() {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run npx tsc -p tsconfig.json (npm test builds first)`);
}

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `microremed <args>`; never rejects. `env`: the whole environment (default: the test's). */
export async function cli(
  args: string[],
  opts: { timeout?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const r = await execa(process.execPath, [CLI, ...args], {
    reject: false,
    timeout: opts.timeout ?? 180_000,
    cwd: opts.cwd ?? ROOT,
    ...(opts.env ? { env: opts.env, extendEnv: false } : {}),
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Start `microremed run <args>` without waiting: for tests that signal it mid-case. */
export function startCli(
  args: string[],
  opts: { timeout?: number } = {},
): ResultPromise<{ reject: false; timeout: number; cwd: string; detached: false }> {
  return execa(process.execPath, [CLI, ...args], {
    reject: false,
    timeout: opts.timeout ?? 180_000,
    cwd: ROOT,
    detached: false,
  });
}

/** Resolves once a line matching `re` appeared on the child's stderr (rejects when it exits first). */
export function waitForStderr(child: ResultPromise, re: RegExp, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => finish(new Error(`no line matching ${re} within ${timeoutMs} ms; stderr so far:\n${seen}`)),
      timeoutMs,
    );
    const onData = (b: Buffer) => {
      seen += b.toString();
      const line = seen.split("\n").find((l) => re.test(l));
      if (line) finish(undefined, line);
    };
    const onExit = () =>
      finish(new Error(`the process ended before a line matching ${re}; stderr:\n${seen}`));
    function finish(err?: Error, line?: string) {
      clearTimeout(timer);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      if (err) reject(err);
      else resolve(line as string);
    }
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Kubernetes objects and records as parsed JSON. */
export type Json = Record<string, unknown>;

/** An object as `kubectl get -o json` lists it: it always has a name and a spec. */
export type Listed<T extends { metadata?: V1ObjectMeta; spec?: unknown }> = T & {
  metadata: V1ObjectMeta & { name: string };
  spec: NonNullable<T["spec"]>;
};

/** The kinds a test lists with `items`, by kubectl's resource name. */
interface ListedKinds {
  deployments: V1Deployment;
  pods: V1Pod;
}

/** run.json as src/runner/run.ts writes it: the run's identity (config) and options. */
export interface RunJson {
  config: Json;
  options: Json;
  startedAt: string;
  resumedAt?: string;
  [field: string]: unknown;
}

/** A case's conversation.json: the report the model was given, then the conversation. */
export interface ConversationJson {
  report: Json;
  [field: string]: unknown;
}

export interface SimCluster {
  kubeconfig: string;
  kubectl(args: string[], opts?: { reject?: boolean; kubeconfig?: string }): Promise<CliResult>;
  /** Parsed `kubectl get <what> -n ns -o json` items. */
  items<K extends keyof ListedKinds>(what: K, ns: string): Promise<Listed<ListedKinds[K]>[]>;
  stop(): Promise<void>;
}

/** A container's `date -u +%s` (hello-service's busybox sidecar by default): the cluster's clock as a pod reads it, in s. */
export async function containerDate(
  sim: SimCluster,
  ns: string,
  where = ["deploy/hello-service", "sidecar-busybox"],
) {
  const [target, container] = where;
  return Number(
    (await sim.kubectl(["exec", "-n", ns, target, "-c", container, "--", "date", "-u", "+%s"])).stdout,
  );
}

/** `microremed sim --kubeconfig P --speed F` in the background, ready once it printed its line. */
export async function startSim(dir: string, speed: number): Promise<SimCluster> {
  const kubeconfig = join(dir, "sim.kubeconfig");
  const child = execa(process.execPath, [CLI, "sim", "--kubeconfig", kubeconfig, "--speed", String(speed)], {
    reject: false,
    cwd: ROOT,
    detached: false,
    timeout: 900_000,
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`microremed sim did not get ready: ${out}`)), 30_000);
    child.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("embedded cluster ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`microremed sim exited: ${out}`));
    });
  });
  const kubectl = async (args: string[], opts: { reject?: boolean; kubeconfig?: string } = {}) => {
    const r = await execa("kubectl", args, {
      env: { KUBECONFIG: opts.kubeconfig ?? kubeconfig },
      reject: false,
      timeout: 60_000,
    });
    const res = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    if (opts.reject !== false && res.exitCode !== 0)
      throw new Error(`kubectl ${args.join(" ")} exited ${res.exitCode}: ${res.stderr}`);
    return res;
  };
  return {
    kubeconfig,
    kubectl,
    async items<K extends keyof ListedKinds>(what: K, ns: string) {
      const list = JSON.parse((await kubectl(["get", what, "-n", ns, "-o", "json"])).stdout) as {
        items: Listed<ListedKinds[K]>[];
      };
      return list.items;
    },
    async stop() {
      child.kill("SIGTERM");
      await child;
    },
  };
}

export const CHAOS_KINDS = "stresschaos,networkchaos,podchaos,iochaos,httpchaos";

/** What must hold of a namespace after any run: no chaos object aimed at it, every deployment Ready. */
export async function expectCleanNamespace(sim: SimCluster, ns: string, expect: ExpectStatic) {
  const chaos = await sim.kubectl(["get", CHAOS_KINDS, "-n", ns, "-o", "name"]);
  expect(chaos.stdout.trim(), `chaos objects left in ${ns}`).toBe("");
  const aimed = await sim.kubectl([
    "get",
    CHAOS_KINDS,
    "-n",
    "chaos-mesh",
    "-l",
    `microremed.io/target-namespace=${ns}`,
    "-o",
    "name",
  ]);
  expect(aimed.stdout.trim(), `chaos objects aimed at ${ns} left in chaos-mesh`).toBe("");
  const deps = await sim.items("deployments", ns);
  expect(deps.map((d) => d.metadata.name).sort()).toEqual(["hello-service", "time-service"]);
  for (const d of deps) {
    expect(d.status?.readyReplicas ?? 0, `${d.metadata.name} Ready`).toBe(d.spec.replicas);
    expect(d.status?.updatedReplicas ?? 0, `${d.metadata.name} rolled out`).toBe(d.spec.replicas);
  }
}

export function tmp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function write(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** A scripted model file whose every case answers with print_playbook(playbook). */
export function scriptedPlaybooks(dir: string, name: string, playbooks: string[]): string {
  const turns = playbooks.map((playbook) => ({
    toolCalls: [{ name: "print_playbook", arguments: { playbook } }],
    usage: { inputTokens: 100, outputTokens: 10 },
  }));
  return write(dir, name, stringify({ turns }));
}

export function readCases(runDir: string): CaseRecord[] {
  const f = join(runDir, "cases.jsonl");
  if (!existsSync(f)) return [];
  return readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as CaseRecord);
}

/** A JSON record of a run, read as T (RunJson, RunSummary, ConversationJson; Json when open). */
export function readJson<T = Json>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** The last non-empty stderr line (the CLI's one-line error). */
export function lastLine(s: string): string {
  const lines = s.trim().split("\n");
  return lines[lines.length - 1];
}

/** A playbook that changes nothing. */
export const NOTHING =
  "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - ansible.builtin.debug: {msg: nothing}\n";
