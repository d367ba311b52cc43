// The experiment loop: plan the cases, run them one by one on the cluster behind the
// kubeconfig, record each as it finishes, and summarize. Ctrl-C cleans up the current case,
// records it as interrupted, and stops.
import { existsSync, readFileSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { AnsibleExecutor } from "../ansible/executor.js";
import { deployEnv, ensureNamespace } from "../envs/deploy.js";
import { loadEnv, sourceManifest } from "../envs/env.js";
import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import type { ClusterTime } from "../kube/time.js";
import { resolveModel } from "../llm/registry.js";
import { resolveMethod } from "../methods/registry.js";
import { isErrorOfRun } from "../outcome.js";
import { RunRecords } from "../runlog/folder.js";
import { type CaseRecord, trialKey } from "../runlog/records.js";
import { formatSummary, type RunSummary, rateLine, summarize } from "../runlog/summary.js";
import { requireSandbox } from "../sandbox/support.js";
import { runCase } from "./case.js";
import { freeOptions, identity, type RunConfig } from "./config.js";
import { inapplicable, loadExperimentFile, planCases } from "./experiments.js";
import { caseLead, methodLead, rebasesPerCase } from "./lead.js";
import { caseSetup } from "./setup.js";
import { expandTrials, shardCases, shardLabel } from "./trials.js";

export interface Connection {
  client: KubeClient;
  time: ClusterTime;
  kubeconfigPath: string;
}

export interface RunHooks {
  /** Progress lines (the CLI prints them to stderr). */
  log: (line: string) => void;
  signal: AbortSignal;
}

/** A part of a folder name: letters, digits, `.`, `_`, `-`; anything else (`/`, `:`, spaces) one `-`. */
const segment = (s: string) =>
  s
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-[.-]*-/g, "-")
    .replace(/^[-.]+|-+$/g, "") || "-";

/**
 * <env>_<method>_<experiment file>_<model>, one path segment whatever the ids hold
 * (`cmd:./agents/fix.sh`, `openai-compatible:org/model`): run.json keeps the full ids.
 */
export function defaultRunName(cfg: RunConfig): string {
  const exp = basename(cfg.experimentPath, extname(cfg.experimentPath));
  return [basename(cfg.env), cfg.method, exp, cfg.model].map(segment).join("_");
}

export interface PreparedRun {
  cfg: RunConfig;
  env: ReturnType<typeof loadEnv>;
  method: Awaited<ReturnType<typeof resolveMethod>>;
  model: ReturnType<typeof resolveModel>;
  plan: ReturnType<typeof planCases>;
  /** Failure types of the file that do not apply to the system (their cases are left out). */
  skipped: string[];
  runName: string;
}

/**
 * A run folder that already holds cases may only be resumed with the configuration it was
 * started with. Returns what run.json recorded (undefined for a new run).
 */
function checkResume(dir: string, id: ReturnType<typeof identity>): { startedAt?: string } | undefined {
  const runFile = join(dir, "run.json");
  if (!existsSync(runFile)) return undefined;
  const before = JSON.parse(readFileSync(runFile, "utf8")) as {
    config?: Record<string, unknown>;
    startedAt?: string;
  };
  const hasCases = new RunRecords(dir).read().length > 0;
  const recorded = before.config;
  const now = id as Record<string, unknown>;
  const diff =
    hasCases && recorded
      ? // an option the recorded run did not know yet was unset then
        Object.keys(id).filter(
          (k) => JSON.stringify(k in recorded ? recorded[k] : null) !== JSON.stringify(now[k]),
        )
      : [];
  if (diff.length)
    throw new MicroRemedError(
      "E_RESUME_MISMATCH",
      `${dir} holds a run with a different configuration (${diff.map((k) => `${k}: ${JSON.stringify(recorded?.[k])} → ${JSON.stringify(now[k])}`).join(", ")})`,
      "run with the same options to resume it, or pass another --save-path or --run-name",
    );
  return before;
}

/** Everything a user wrote, checked before any cluster is started or touched. */
export async function prepareRun(cfg: RunConfig): Promise<PreparedRun> {
  const env = loadEnv(cfg.env);
  const method = await resolveMethod(cfg.method);
  const model = resolveModel(cfg.model, { baseUrl: cfg.baseUrl });
  const exp = loadExperimentFile(cfg.experimentPath);
  const plan = planCases(exp, env, cfg.seed, cfg.experiments);
  // the manifests to restore targets from must be readable before a case breaks a target
  if (cfg.manifestPath)
    for (const c of plan) for (const f of c.faults) sourceManifest(env, f.target, cfg.manifestPath);
  // where bubblewrap cannot run, refuse before any cluster starts, unless --sandbox none
  await requireSandbox(cfg.sandbox);
  const runName = cfg.runName ?? defaultRunName(cfg);
  // a resume with another configuration is refused before any cluster is started
  checkResume(join(cfg.savePath, runName), identity(cfg));
  return { cfg, env, method, model, plan, skipped: inapplicable(exp, env), runName };
}

export async function runExperiments(
  cfg: RunConfig,
  conn: Connection,
  hooks: RunHooks,
  prepared?: PreparedRun,
): Promise<RunSummary> {
  prepared ??= await prepareRun(cfg);
  const { env, method, model, plan, runName } = prepared;
  const records = new RunRecords(join(cfg.savePath, runName));

  const previous = records.read();
  const id = identity(cfg);
  const maxAttempts = cfg.maxAttempts ?? method.maxAttempts;
  const before = checkResume(records.dir, id);
  const now = new Date().toISOString();
  const started =
    previous.length && before?.startedAt
      ? { startedAt: before.startedAt, resumedAt: now }
      : { startedAt: now };
  records.writeJson("run.json", {
    config: id,
    // T_max in force: the method's definition, or --max-attempts
    maxAttempts,
    // options that do not change what a case measures: recorded, free to differ on a resume
    options: freeOptions(cfg),
    cluster: cfg.cluster,
    speed: conn.time.fastSpeed,
    methodSpeed: cfg.methodSpeed,
    // what `report` checks when it merges shards: every case of the plan once
    plannedCases: plan.length,
    trials: cfg.trials,
    shard: id.shard,
    ...started,
  });

  // this machine's slice of the cases (all without --shard), each run --trials times
  const trials = expandTrials(shardCases(plan, cfg.shard), cfg.trials);
  const runs = trials.length;
  // the last record of each case (and trial) counts; interrupted cases and errors of the run run again
  const done = new Map<string, CaseRecord>();
  for (const r of previous) {
    const key = trialKey(r.index, r.trial);
    if (isErrorOfRun(r.status)) done.delete(key);
    else done.set(key, r);
  }
  const todo = trials.filter((t) => !done.has(trialKey(t.case.index, t.trial)));
  if (done.size) hooks.log(`resuming ${runName}: ${done.size} of ${runs} cases already done`);
  if (model.notice) hooks.log(model.notice);
  if (prepared.skipped.length)
    hooks.log(
      `${env.name} lists no targets for ${prepared.skipped.join(", ")}: their cases do not apply to it and are left out`,
    );

  const workers = Math.max(1, Math.min(cfg.parallel, todo.length || 1));
  // Each worker has its own copy of the system in its own namespace: <ns>, <ns>-2, ...
  const namespaces = Array.from({ length: workers }, (_, i) =>
    i === 0 ? cfg.namespace : `${cfg.namespace}-${i + 1}`,
  );
  hooks.log(
    `${runName}: ${runs} case${runs === 1 ? "" : "s"}${cfg.shard ? ` (shard ${shardLabel(cfg.shard)} of ${plan.length})` : ""}${cfg.trials > 1 ? ` (${cfg.trials} trials each)` : ""} of ${cfg.experimentPath} on ${cfg.env} (namespace${workers > 1 ? "s" : ""} ${namespaces.join(", ")}, ${cfg.cluster === "sim" ? `embedded cluster at speed ${conn.time.speed}` : "cluster from kubeconfig"})`,
  );
  await Promise.all(
    namespaces.map(async (ns) => {
      if ((await ensureNamespace(conn.client, ns, env.name)) === "created")
        hooks.log(`deploying ${env.name} into ${ns}`);
      await deployEnv(conn.client, conn.time, env, ns, hooks.signal);
    }),
  ).catch((e) => {
    // Ctrl-C while deploying: no case has started, so there is nothing to clean up or record
    if (hooks.signal.aborted)
      throw new MicroRemedError(
        "E_INTERRUPTED",
        `interrupted while deploying ${env.name} into ${namespaces.join(", ")}, before any case started`,
        "run the same command again to start the run",
      );
    throw e;
  });

  // While a method acts, time passes as on a real cluster (a model's thinking, ansible's own
  // start-up); only while it waits on the cluster (a watch open) does the clock run fast again.
  const methodSpeed = cfg.methodSpeed;
  if (conn.time.adjustable && methodSpeed !== conn.time.fastSpeed)
    hooks.log(
      `the embedded cluster runs at speed ${methodSpeed} while the method acts (${conn.time.fastSpeed} while it waits on the cluster), ${conn.time.fastSpeed} otherwise`,
    );
  const executor = new AnsibleExecutor({
    inventory: cfg.inventory,
    kubeconfig: conn.kubeconfigPath,
    timeoutMs: cfg.playbookTimeout * 1000,
    sandbox: cfg.sandbox,
    // where ansible is installed outside PATH (a virtualenv)
    ansiblePlaybook: process.env.MICROREMED_ANSIBLE_PLAYBOOK || undefined,
  });
  const all = [...done.values()];
  const queue = [...todo];
  const worker = async (namespace: string) => {
    const wcfg = { ...cfg, namespace };
    for (let t = queue.shift(); t && !hooks.signal.aborted; t = queue.shift()) {
      const pc = t.case;
      const trial = cfg.trials > 1 ? t.trial : undefined;
      const label = `[${pc.index}/${plan.length}${trial ? ` trial ${trial}` : ""}]${workers > 1 ? ` (${namespace})` : ""} ${pc.faults.map((f) => `${f.failure} → ${f.target}`).join(", ")}`;
      const setup = caseSetup({
        client: conn.client,
        time: conn.time,
        env,
        cfg: wcfg,
        method,
        model,
        executor,
        caseDir: records.caseDir(pc.index, trial),
        onPhase: (phase) => hooks.log(`${label}: ${phase}`),
        signal: hooks.signal,
        maxAttempts,
      });
      // one case at a time: it is shown its own leads, not what the rest of the run will gain
      // (sized for T_max in force: the method's own, or --max-attempts)
      const sized = { ...cfg, maxAttempts };
      const ready = env.readyTimeoutSeconds;
      const leads = rebasesPerCase(cfg)
        ? { caseLead: caseLead(sized, pc, ready), methodLead: methodLead(sized, pc, ready) }
        : {};
      const rec = await runCase(pc, { ...setup, ...leads }, trial);
      records.append(rec);
      all.push(rec);
      const s = summarize(
        runName,
        { env: env.name, method: method.name, model: model.id, trials: cfg.trials },
        all,
      );
      hooks.log(
        `${label}: ${rec.status}${rec.errors.length ? ` (${rec.errors[0].slice(0, 160)})` : ""} — running success rate ${rateLine(s)}`,
      );
    }
  };
  await Promise.all(namespaces.map(worker));
  // every record of the folder (summarize keeps the last of each case and trial): an error of an
  // earlier session that this one did not reach again still counts as an error
  const summary = summarize(
    runName,
    { env: env.name, method: method.name, model: model.id, trials: cfg.trials },
    records.read().sort((a, b) => a.index - b.index || (a.trial ?? 1) - (b.trial ?? 1)),
  );
  records.writeJson("summary.json", summary);
  records.writeText("summary.txt", formatSummary(summary));
  if (hooks.signal.aborted)
    throw new MicroRemedError(
      "E_INTERRUPTED",
      `interrupted: the current case was cleaned up and recorded as interrupted in ${records.casesFile}`,
      "run the same command again to resume",
    );
  return summary;
}
