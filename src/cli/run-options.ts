// The run options, declared once in a table typed against RunConfig: the reference's flags
// (same names and defaults) plus MicroRemed's own. `run` and `run-all` share it.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { isEnvPath, loadEnv } from "../envs/env.js";
import { usageError } from "../errors.js";
import type { RunConfig } from "../runner/config.js";
import { parseShard, type Shard } from "../runner/trials.js";
import { parseSandboxMode } from "../sandbox/support.js";
import { packageRoot } from "../util/paths.js";
import { parseNonNegativeInt, parsePositive } from "./options.js";

type Flag = {
  flags: string;
  key: keyof RunConfig;
  help: string;
  parse?: (v: string) => unknown;
  default?: unknown;
};

const int = (flag: string) => (v: string) => parseNonNegativeInt(v, flag);
const pos = (flag: string) => (v: string) => parsePositive(v, flag);

function parseBaseUrl(v: string): string {
  if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol))
    throw usageError(
      `--base-url must be an http(s) URL, got "${v}"`,
      "pass e.g. --base-url http://127.0.0.1:8000/v1",
    );
  return v;
}

/** --egress (run and sim): how the embedded cluster reaches addresses outside it. */
export function parseEgress(v: string): "internet" | "none" {
  if (v === "internet" || v === "none") return v;
  throw usageError(
    `--egress must be internet or none, got "${v}"`,
    "use --egress internet (outside addresses answer, as on k3s) or --egress none (air-gapped)",
  );
}

/** --agent-access: what the model's identity may do (the reference's setting is cluster-admin). */
export function parseAgentAccess(v: string): "namespace" | "cluster-admin" {
  if (v === "namespace" || v === "cluster-admin") return v;
  throw usageError(
    `--agent-access must be namespace or cluster-admin, got "${v}"`,
    "use --agent-access namespace (RBAC confines the agent to the case's namespace) or cluster-admin (the reference's setting)",
  );
}

export const RUN_FLAGS: Flag[] = [
  {
    flags: "--experiments <n>",
    key: "experiments",
    help: "number of cases to run (default: every case of the experiment file; more cycles through it)",
    parse: (v) => parsePositive(v, "--experiments", true),
  },
  {
    flags: "--namespace <ns>",
    key: "namespace",
    help: "namespace to deploy into and target (default: the env's own, e.g. train-ticket)",
  },
  {
    flags: "--wait-interval <s>",
    key: "waitInterval",
    help: "seconds (cluster time) between status checks where nothing can be watched",
    parse: pos("--wait-interval"),
    default: 10,
  },
  {
    flags: "--injection-timeout <s>",
    key: "injectionTimeout",
    help: "seconds (cluster time) for an injected fault to show before the case is an injection failure",
    parse: pos("--injection-timeout"),
    default: 30,
  },
  {
    flags: "--env <name|dir>",
    key: "env",
    help: "system: simple-micro, online-boutique, train-ticket, or a folder with an env.yaml (microremed env init DIR)",
    default: "train-ticket",
  },
  { flags: "--save-path <dir>", key: "savePath", help: "folder for run records", default: "conversations" },
  {
    flags: "--manifest-path <file>",
    key: "manifestPath",
    help: "original manifests to restore targets from (default: envs/<env>/source-config.yaml)",
  },
  {
    flags: "--remediate-method <name>",
    key: "method",
    help: "remediation method: SoloGen or ThinkRemed",
    default: "ThinkRemed",
  },
  {
    flags: "--experiment-path <file>",
    key: "experimentPath",
    help: "experiment file (.txt: one failure per line; .yaml: explicit cases)",
    default: "experiments/easy.txt",
  },
  {
    flags: "--enable-strict-restart",
    key: "enableStrictRestart",
    help: "on an injection timeout, restart the target and inject once more",
    default: false,
  },
  {
    flags: "--model <id>",
    key: "model",
    help: "backbone model (oracle, noop, scripted:<file>, or a provider model: see `microremed models`)",
  },
  {
    flags: "--cluster <sim|kube>",
    key: "cluster",
    help: "embedded cluster (sim, default) or the cluster of a kubeconfig (kube)",
    default: "sim",
  },
  {
    flags: "--kubeconfig <file>",
    key: "kubeconfig",
    help: "kubeconfig for --cluster kube (default: KUBECONFIG, then ~/.kube/config)",
  },
  { flags: "--context <name>", key: "context", help: "kubeconfig context for --cluster kube" },
  {
    flags: "--seed <n>",
    key: "seed",
    help: "seed for target selection and the embedded cluster",
    parse: int("--seed"),
    default: 42,
  },
  {
    flags: "--max-attempts <n>",
    key: "maxAttempts",
    help: "ThinkRemed's T_max (default 2, as the reference)",
    parse: (v) => parsePositive(v, "--max-attempts", true),
  },
  {
    flags: "--speed <factor>",
    key: "speed",
    help: "embedded cluster clock speed; every protocol duration stays in cluster time, so results do not depend on it",
    parse: pos("--speed"),
    default: 60,
  },
  {
    flags: "--egress <mode>",
    key: "egress",
    help: "embedded cluster: outside addresses answer as from a node with Internet access (internet) or not (none: air-gapped)",
    parse: parseEgress,
    default: "internet",
  },
  {
    flags: "--settle <s>",
    key: "settle",
    help: "seconds (cluster time) to wait after a playbook before verifying",
    parse: int("--settle"),
    default: 10,
  },
  {
    flags: "--playbook-timeout <s>",
    key: "playbookTimeout",
    help: "seconds (wall time) a playbook may run before it is killed",
    parse: pos("--playbook-timeout"),
    default: 600,
  },
  {
    flags: "--run-name <name>",
    key: "runName",
    help: "folder name of the run in --save-path (default: <env>_<method>_<experiments>_<model>)",
  },
  {
    flags: "--inventory <file>",
    key: "inventory",
    help: "Ansible inventory the playbooks run with",
    default: "inventory.ini",
  },
  {
    flags: "--method-speed <factor>",
    key: "methodSpeed",
    help: "embedded cluster clock speed while a model or playbook acts (default 1, as on a real cluster; the run's --speed while a playbook waits on the cluster with a watch)",
    parse: pos("--method-speed"),
  },
  {
    flags: "--parallel <n>",
    key: "parallel",
    help: "cases at once, each in its own copy of the system (namespaces <ns>, <ns>-2, ...)",
    parse: (v) => parsePositive(v, "--parallel", true),
    default: 1,
  },
  {
    flags: "--trials <k>",
    key: "trials",
    help: "runs of each case (a fresh injection each, the same target); summary and report show pass@1, pass@k and pass^k",
    parse: (v) => parsePositive(v, "--trials", true),
    default: 1,
  },
  {
    flags: "--shard <i/n>",
    key: "shard",
    help: "run only the i-th of n deterministic slices of the cases (same seed, same cases in total); `report` merges the shards' folders",
    parse: parseShard,
  },
  {
    flags: "--agent-access <access>",
    key: "agentAccess",
    help: "what the model's playbooks and probes may do: namespace (a ServiceAccount confined by RBAC to the case's namespace) or cluster-admin (the reference's setting, for comparison)",
    parse: parseAgentAccess,
    default: "namespace",
  },
  {
    flags: "--sandbox <mode>",
    key: "sandbox",
    help: "how playbooks run on this machine: bwrap (a bubblewrap sandbox: read-only system, no network but the cluster's API, nothing of your environment) or none (unconfined; recorded in run.json)",
    parse: parseSandboxMode,
    default: "bwrap",
  },
  {
    flags: "--base-url <url>",
    key: "baseUrl",
    help: "the model provider's API URL, for any provider model (e.g. a local vLLM or Ollama: --model openai-compatible:<model> --base-url http://127.0.0.1:8000/v1)",
    parse: parseBaseUrl,
  },
];

export function addRunOptions(cmd: Command, skip: (keyof RunConfig)[] = []): Command {
  for (const f of RUN_FLAGS) {
    if (skip.includes(f.key)) continue;
    if (f.parse) cmd.option(f.flags, f.help, f.parse as (v: string) => unknown, f.default);
    else cmd.option(f.flags, f.help, f.default as string | boolean | undefined);
  }
  return cmd;
}

/** Commander's camelCase names → RunConfig, with the defaults that depend on other values. */
export function toRunConfig(o: Record<string, unknown>): RunConfig {
  // a folder is recorded by its absolute path; its namespace is the one its env.yaml names
  const env = isEnvPath(String(o.env)) ? resolve(String(o.env)) : String(o.env);
  const inventory = String(o.inventory ?? "inventory.ini");
  return {
    env,
    namespace: (o.namespace as string | undefined) ?? (isEnvPath(env) ? loadEnv(env).defaultNamespace : env),
    experimentPath: resolveData(String(o.experimentPath)),
    experiments: o.experiments as number | undefined,
    method: String(o.remediateMethod ?? o.method),
    model: o.model as string,
    savePath: String(o.savePath),
    manifestPath: o.manifestPath === undefined ? undefined : resolve(String(o.manifestPath)),
    waitInterval: o.waitInterval as number,
    injectionTimeout: o.injectionTimeout as number,
    enableStrictRestart: Boolean(o.enableStrictRestart),
    seed: o.seed as number,
    maxAttempts: o.maxAttempts as number | undefined,
    settle: o.settle as number,
    playbookTimeout: o.playbookTimeout as number,
    cluster: o.cluster as "sim" | "kube",
    kubeconfig: o.kubeconfig as string | undefined,
    context: o.context as string | undefined,
    speed: o.speed as number,
    egress: o.egress as "internet" | "none" | undefined,
    runName: o.runName as string | undefined,
    parallel: o.parallel as number | undefined,
    methodSpeed: o.methodSpeed as number | undefined,
    baseUrl: o.baseUrl as string | undefined,
    agentAccess: o.agentAccess as "namespace" | "cluster-admin" | undefined,
    trials: o.trials as number | undefined,
    shard: o.shard as Shard | undefined,
    sandbox: o.sandbox as "bwrap" | "none" | undefined,
    // the shipped inventory when the user has none of their own here
    inventory: resolveData(inventory),
  };
}

/** A path as given if it exists here, else the package's own file of that name (experiments/, inventory.ini). */
export function resolveData(p: string): string {
  if (existsSync(p)) return resolve(p);
  const shipped = resolve(packageRoot(), p);
  return existsSync(shipped) ? shipped : resolve(p);
}
