// What a run is configured with: the reference's flags plus MicroRemed's own. The CLI's option
// table is typed against this, so flags and config cannot drift apart.
import type { Shard } from "./trials.js";

export interface RunConfig {
  env: string;
  namespace: string;
  experimentPath: string;
  /** Run the first N cases of the file (cycling when N is larger); all when undefined. */
  experiments?: number;
  method: string;
  model: string;
  savePath: string;
  /** The original manifests to restore targets from (default: the env's source config). */
  manifestPath?: string;
  /** Seconds (cluster) between status checks where nothing can be watched. */
  waitInterval: number;
  /** Seconds (cluster) for a fault to show before it counts as an injection failure. */
  injectionTimeout: number;
  /** On an injection timeout, restart the target and try the injection once more. */
  enableStrictRestart: boolean;
  seed: number;
  /** ThinkRemed's T_max; SoloGen makes one attempt. */
  maxAttempts?: number;
  /** Seconds (cluster) to wait after a playbook before verifying (the reference: 10). */
  settle: number;
  /** Seconds (wall) a playbook may run before it is killed. */
  playbookTimeout: number;
  cluster: "sim" | "kube";
  kubeconfig?: string;
  context?: string;
  /** Embedded cluster only: clock speed. */
  speed: number;
  /** Embedded cluster only: outside addresses answer ("internet", default) or not ("none"). */
  egress?: "internet" | "none";
  /** Folder name of the run inside savePath (default from env, method, model and experiment file). */
  runName?: string;
  inventory: string;
  /**
   * Embedded cluster only: clock speed while a method acts (default 1: a model's thinking and
   * ansible's own time pass as on a real cluster); the run's speed while it waits on a watch.
   */
  methodSpeed?: number;
  /** Cases at once, each in its own copy of the system (namespaces <ns>, <ns>-2, ...). */
  parallel?: number;
  /** The provider's base URL (--base-url), overriding the registry's and its variable. */
  baseUrl?: string;
  /** What the agent's identity may do: its namespace (default) or cluster-admin (the reference's). */
  agentAccess?: "namespace" | "cluster-admin";
  /** How playbooks are confined on this machine: bubblewrap (default) or not at all. */
  sandbox?: "bwrap" | "none";
  /** Runs of each case (a fresh injection each, the same target). */
  trials?: number;
  /** Run only this slice of the cases (--shard i/n). */
  shard?: Shard;
}

/** What must match for a run to be resumed (issue 6) and what is recorded with each run. */
export function identity(c: RunConfig) {
  return {
    env: c.env,
    namespace: c.namespace,
    experimentPath: c.experimentPath,
    experiments: c.experiments ?? null,
    method: c.method,
    model: c.model,
    seed: c.seed,
    maxAttempts: c.maxAttempts ?? null,
    settle: c.settle,
    injectionTimeout: c.injectionTimeout,
    enableStrictRestart: c.enableStrictRestart,
    manifestPath: c.manifestPath ?? null,
    agentAccess: c.agentAccess ?? "namespace",
    trials: c.trials ?? 1,
    shard: c.shard ? `${c.shard.index}/${c.shard.count}` : null,
  };
}
