// What a run is configured with, declared once: each option's flag, help text, parser, default,
// and whether it is part of the run's identity (what a resume must match, run.json's config) or
// one of its free options (run.json's options). The CLI's flags (cli/run-options.ts), RunConfig
// and identity() are all read off RUN_OPTIONS, so they cannot drift apart, and every default is
// applied here, once: nothing downstream falls back on a default of its own.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isEnvPath, loadEnv } from "../envs/env.js";
import { usageError } from "../errors.js";
import type { AgentAccess } from "../identity/agent.js";
import { parseSandboxMode } from "../sandbox/support.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";
import { packageRoot } from "../util/paths.js";
import { parseShard, type Shard, shardLabel } from "./trials.js";

interface RunOption {
  /** As commander reads it: "--wait-interval <s>". */
  flags: string;
  help: string;
  parse?: (v: string) => unknown;
  /** Applied by commander and shown in --help. */
  default?: unknown;
  /** Applied when the flag is not given, and not shown in --help (its help text says it). */
  fallback?: unknown;
  /** The option must be given: what to pass. */
  required?: string;
  /** identity: must match for a run to be resumed; options: recorded, free to differ. */
  record?: "identity" | "options";
  /** How the value is written in run.json, when not as itself. */
  recordAs?: (v: never) => unknown;
}

const int = (flag: string) => (v: string) => parseNonNegativeInt(v, flag);
const pos = (flag: string) => (v: string) => parsePositive(v, flag);
const count = (flag: string) => (v: string) => parsePositive(v, flag, true);

function parseBaseUrl(v: string): string {
  if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol))
    throw usageError(
      `--base-url must be an http(s) URL, got "${v}"`,
      "pass e.g. --base-url http://127.0.0.1:8000/v1",
    );
  return v;
}

/** --cluster: the embedded cluster or the cluster of a kubeconfig. */
export function parseCluster(v: string): "sim" | "kube" {
  if (v === "sim" || v === "kube") return v;
  throw usageError(
    `--cluster must be sim or kube, got "${v}"`,
    "use --cluster sim (embedded, default) or --cluster kube --kubeconfig FILE",
  );
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
export function parseAgentAccess(v: string): AgentAccess {
  if (v === "namespace" || v === "cluster-admin") return v;
  throw usageError(
    `--agent-access must be namespace or cluster-admin, got "${v}"`,
    "use --agent-access namespace (RBAC confines the agent to the case's namespace) or cluster-admin (the reference's setting)",
  );
}

/** The run's options, in the order `run --help` lists them: the reference's flags (same names and defaults) and MicroRemed's own. */
export const RUN_OPTIONS = {
  experiments: {
    flags: "--experiments <n>",
    help: "number of cases to run (default: every case of the experiment file; more cycles through it)",
    parse: count("--experiments"),
    record: "identity",
  },
  namespace: {
    flags: "--namespace <ns>",
    help: "namespace to deploy into and target (default: the env's own, e.g. train-ticket)",
    record: "identity",
  },
  waitInterval: {
    flags: "--wait-interval <s>",
    help: "seconds (cluster time) between status checks where nothing can be watched",
    parse: pos("--wait-interval"),
    default: 10,
    record: "options",
  },
  injectionTimeout: {
    flags: "--injection-timeout <s>",
    help: "seconds (cluster time) for an injected fault to show before the case is an injection failure",
    parse: pos("--injection-timeout"),
    default: 30,
    record: "identity",
  },
  env: {
    flags: "--env <name|dir>",
    help: "system: simple-micro, online-boutique, train-ticket, or a folder with an env.yaml (microremed env init DIR)",
    default: "train-ticket",
    record: "identity",
  },
  savePath: { flags: "--save-path <dir>", help: "folder for run records", default: "conversations" },
  manifestPath: {
    flags: "--manifest-path <file>",
    help: "original manifests to restore targets from (default: envs/<env>/source-config.yaml)",
    record: "identity",
  },
  method: {
    flags: "--remediate-method <name>",
    help: "remediation method: SoloGen or ThinkRemed",
    default: "ThinkRemed",
    record: "identity",
  },
  experimentPath: {
    flags: "--experiment-path <file>",
    help: "experiment file (.txt: one failure per line; .yaml: explicit cases)",
    default: "experiments/easy.txt",
    record: "identity",
  },
  enableStrictRestart: {
    flags: "--enable-strict-restart",
    help: "on an injection timeout, restart the target and inject once more",
    default: false,
    record: "identity",
  },
  model: {
    flags: "--model <id>",
    help: "backbone model (oracle, noop, scripted:<file>, or a provider model: see `microremed models`)",
    required: "pass --model oracle, noop, scripted:<file> or a provider model (microremed models lists them)",
    record: "identity",
  },
  cluster: {
    flags: "--cluster <sim|kube>",
    help: "embedded cluster (sim, default) or the cluster of a kubeconfig (kube)",
    parse: parseCluster,
    default: "sim",
  },
  kubeconfig: {
    flags: "--kubeconfig <file>",
    help: "kubeconfig for --cluster kube (default: KUBECONFIG, then ~/.kube/config)",
  },
  context: { flags: "--context <name>", help: "kubeconfig context for --cluster kube", record: "options" },
  seed: {
    flags: "--seed <n>",
    help: "seed for target selection and the embedded cluster",
    parse: int("--seed"),
    default: 42,
    record: "identity",
  },
  maxAttempts: {
    flags: "--max-attempts <n>",
    help: "ThinkRemed's T_max (default 2, as the reference)",
    parse: count("--max-attempts"),
    record: "identity",
  },
  speed: {
    flags: "--speed <factor>",
    help: "embedded cluster clock speed; every protocol duration stays in cluster time, so results do not depend on it",
    parse: pos("--speed"),
    default: 60,
  },
  egress: {
    flags: "--egress <mode>",
    help: "embedded cluster: outside addresses answer as from a node with Internet access (internet) or not (none: air-gapped)",
    parse: parseEgress,
    default: "internet",
  },
  settle: {
    flags: "--settle <s>",
    help: "seconds (cluster time) to wait after a playbook before verifying",
    parse: int("--settle"),
    default: 10,
    record: "identity",
  },
  playbookTimeout: {
    flags: "--playbook-timeout <s>",
    help: "seconds (wall time) a playbook may run before it is killed",
    parse: pos("--playbook-timeout"),
    default: 600,
    record: "options",
  },
  runName: {
    flags: "--run-name <name>",
    help: "folder name of the run in --save-path (default: <env>_<method>_<experiments>_<model>)",
  },
  inventory: {
    flags: "--inventory <file>",
    help: "Ansible inventory the playbooks run with",
    default: "inventory.ini",
    record: "options",
  },
  methodSpeed: {
    flags: "--method-speed <factor>",
    help: "embedded cluster clock speed while a model or playbook acts (default 1, as on a real cluster; the run's --speed while a playbook waits on the cluster with a watch)",
    parse: pos("--method-speed"),
    fallback: 1,
  },
  parallel: {
    flags: "--parallel <n>",
    help: "cases at once, each in its own copy of the system (namespaces <ns>, <ns>-2, ...)",
    parse: count("--parallel"),
    default: 1,
    record: "options",
  },
  trials: {
    flags: "--trials <k>",
    help: "runs of each case (a fresh injection each, the same target); summary and report show pass@1, pass@k and pass^k",
    parse: count("--trials"),
    default: 1,
    record: "identity",
  },
  shard: {
    flags: "--shard <i/n>",
    help: "run only the i-th of n deterministic slices of the cases (same seed, same cases in total); `report` merges the shards' folders",
    parse: parseShard,
    record: "identity",
    recordAs: (s: Shard) => shardLabel(s),
  },
  agentAccess: {
    flags: "--agent-access <access>",
    help: "what the model's playbooks and probes may do: namespace (a ServiceAccount confined by RBAC to the case's namespace) or cluster-admin (the reference's setting, for comparison)",
    parse: parseAgentAccess,
    default: "namespace",
    record: "identity",
  },
  sandbox: {
    flags: "--sandbox <mode>",
    help: "how playbooks run on this machine: bwrap (a bubblewrap sandbox: read-only system, no network but the cluster's API, nothing of your environment) or none (unconfined; recorded in run.json)",
    parse: parseSandboxMode,
    default: "bwrap",
    record: "options",
  },
  baseUrl: {
    flags: "--base-url <url>",
    help: "the model provider's API URL, for any provider model (e.g. a local vLLM or Ollama: --model openai-compatible:<model> --base-url http://127.0.0.1:8000/v1)",
    parse: parseBaseUrl,
  },
} as const satisfies Record<string, RunOption>;

type Options = typeof RUN_OPTIONS;
export type RunKey = keyof Options;

/** What an option's value is: what its parser returns, else its default's type, else the text given. */
type ValueOf<O> = O extends { parse: (v: string) => infer T }
  ? T
  : O extends { default: infer D }
    ? D extends boolean
      ? boolean
      : D extends string
        ? string
        : D
    : string;
/** Options that always have a value once parsed: a default, a fallback, or required. */
type Given = {
  [K in RunKey]: Options[K] extends { default: unknown } | { fallback: unknown } | { required: string }
    ? K
    : never;
}[RunKey];

/** The options as parsed: each typed by its declaration, optional where it may be absent. */
export type RunFlags = { [K in Given]: ValueOf<Options[K]> } & {
  [K in Exclude<RunKey, Given>]?: ValueOf<Options[K]>;
};

/** The run's configuration: the options as parsed, with the namespace the env gives when none was. */
export type RunConfig = Omit<RunFlags, "namespace"> & { namespace: string };

/** The options with their fallbacks applied; a required option that is missing is a usage error. */
export function withFallbacks(given: Partial<Record<RunKey, unknown>>): RunFlags {
  const out: Partial<Record<RunKey, unknown>> = {};
  for (const key of Object.keys(RUN_OPTIONS) as RunKey[]) {
    const o: RunOption = RUN_OPTIONS[key];
    const v = given[key] ?? o.fallback;
    if (v === undefined && o.required) throw usageError(`${longFlag(o.flags)} is required`, o.required);
    out[key] = v;
  }
  // each value was parsed by its option's parser (or is its default): the shape RUN_OPTIONS declares
  return out as RunFlags;
}

const longFlag = (flags: string) => flags.split(/[ ,]/)[0];

/** Paths and names as a run records them: absolute, and the namespace the env gives. */
export function resolveConfig(f: RunFlags): RunConfig {
  // a folder is recorded by its absolute path; its namespace is the one its env.yaml names
  const env = isEnvPath(f.env) ? resolve(f.env) : f.env;
  return {
    ...f,
    env,
    namespace: f.namespace ?? (isEnvPath(env) ? loadEnv(env).defaultNamespace : env),
    experimentPath: resolveData(f.experimentPath),
    manifestPath: f.manifestPath === undefined ? undefined : resolve(f.manifestPath),
    // the shipped inventory when the user has none of their own here
    inventory: resolveData(f.inventory),
  };
}

/** A path as given if it exists here, else the package's own file of that name (experiments/, inventory.ini). */
export function resolveData(p: string): string {
  if (existsSync(p)) return resolve(p);
  const shipped = resolve(packageRoot(), p);
  return existsSync(shipped) ? shipped : resolve(p);
}

/** The options of one record kind as run.json writes them (an absent value as null). */
function recorded(c: RunConfig, kind: "identity" | "options"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(RUN_OPTIONS) as RunKey[]) {
    const o: RunOption = RUN_OPTIONS[key];
    if (o.record !== kind) continue;
    const v = c[key];
    out[key] = v === undefined ? null : o.recordAs ? (o.recordAs as (x: unknown) => unknown)(v) : v;
  }
  return out;
}

/** What must match for a run to be resumed (issue 6), recorded as run.json's config. */
export const identity = (c: RunConfig) => recorded(c, "identity");

/** Options that do not change what a case measures: recorded in run.json, free to differ on a resume. */
export const freeOptions = (c: RunConfig) => recorded(c, "options");
