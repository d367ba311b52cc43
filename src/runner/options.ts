// The run's options, declared once: each one's flag and help text (as `run --help` prints them,
// in that order), its parser, its default, and where run.json records it: in the run's identity
// (what a resume must match) or among its free options. config.ts computes RunConfig from this
// table; cli/run-options.ts makes commander's flags of it.

import { parseReportLevel } from "../diagnosis/levels.js";
import { usageError } from "../errors.js";
import type { AgentAccess } from "../identity/agent.js";
import { parseSandboxMode } from "../sandbox/support.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";
import { parseShard, type Shard, shardLabel } from "./trials.js";

export interface RunOption {
  /** As commander reads it: "--wait-interval <s>". */
  flags: string;
  help: string;
  parse?: (v: string) => unknown;
  /** Applied when the flag is not given. */
  default?: unknown;
  /** false: --help does not print the default (the help text says it in its own words). */
  showDefault?: false;
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
    help: "backbone model (oracle, noop, runbook, scripted:<file>, or a provider model: see `microremed models`)",
    required:
      "pass --model oracle, noop, runbook, scripted:<file> or a provider model (microremed models lists them)",
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
  hold: {
    flags: "--hold <s>",
    help: "seconds (cluster time) every check must keep passing after the settle; a fix that reverts or flaps fails (default: 60 for the expert tier's failures, none for the reference's)",
    parse: int("--hold"),
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
    default: 1,
    showDefault: false,
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
  report: {
    flags: "--report <level>",
    help: "what the method is told (src/diagnosis/levels.ts): full (the reference's report; the expert tier's category and service), service (namespace and root-cause service only) or symptom (a user-facing alert: no service, no category)",
    parse: parseReportLevel,
    default: "full",
    record: "identity",
  },
  noise: {
    flags: "--noise",
    help: "make seeded background events that are not the fault (an unrelated pod restarted, a warning event, a ConfigMap edited, a CPU burst elsewhere) before the report; recorded per case, never part of the verdict",
    default: false,
    record: "identity",
  },
  baseUrl: {
    flags: "--base-url <url>",
    help: "the model provider's API URL, for any provider model (e.g. a local vLLM or Ollama: --model openai-compatible:<model> --base-url http://127.0.0.1:8000/v1)",
    parse: parseBaseUrl,
  },
} as const satisfies Record<string, RunOption>;
