// One case, as a pipeline of roles (architecture.md):
//   prepare (healthy namespace) → inject → confirm → identity → solve (the method, handed the
//   executor, the scorer and the prober as roles) → settle + score → restore
// and always, whatever happens (error, timeout, Ctrl-C): stop the chaos, restore the targets,
// delete the agent's identity. A case ends as success, failure (the answer did not remediate, or
// the cluster refused it) or error (provider, tool or cluster: left out of the success rate).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Executor } from "../ansible/executor.js";
import { failure as failureSpec } from "../chaos/catalog.js";
import { type Injection, removeAllChaos } from "../chaos/inject.js";
import type { KubeClient } from "../cluster/client.js";
import type { ClusterTime } from "../cluster/time.js";
import { buildDiagnosis } from "../diagnosis/build.js";
import { applyAll, waitHealthy } from "../envs/deploy.js";
import type { EnvSpec } from "../envs/env.js";
import { allSettled, type HealthSnapshot, snapshot } from "../envs/health.js";
import { isMicroRemedError } from "../errors.js";
import { type AgentIdentity, createAgentIdentity } from "../identity/agent.js";
import { executionError } from "../methods/errors.js";
import type { Method, MethodError, MethodResult, Prober } from "../methods/types.js";
import { addUsage, emptyUsage, type Model } from "../models/types.js";
import type { ErrorReason } from "../outcome.js";
import { createProbe, probeLimits } from "../probe/index.js";
import { deriveReasons } from "../runlog/reasons.js";
import type { CaseRecord, Phases } from "../runlog/records.js";
import { CaseScorer } from "../verify/scorer.js";
import { DEFAULT_TIMEOUTS, type Score, type VerifyContext } from "../verify/types.js";
import type { RunConfig } from "./config.js";
import type { PlannedCase } from "./experiments.js";
import { SandboxLauncher } from "./launcher.js";
import {
  ChaosInjector,
  type Fault,
  FaultConfirmer,
  faultsEndAt,
  type HarnessDeps,
  ServiceRestorer,
} from "./roles.js";
import {
  emptyTimes,
  remediationMs,
  timedExecutor,
  timedLauncher,
  timedModel,
  timedProber,
  timedScorer,
} from "./timing.js";

export interface CaseDeps {
  client: KubeClient;
  time: ClusterTime;
  env: EnvSpec;
  cfg: RunConfig;
  method: Method;
  model: Model;
  executor: Executor;
  /** T_max in force (the method's, or --max-attempts). */
  maxAttempts: number;
  caseDir: string;
  onPhase: (phase: string) => void;
  signal: AbortSignal;
  /** Clock speed of the embedded cluster while the method acts. */
  methodSpeed: number;
}

async function timed<T>(phases: Phases, key: keyof Phases, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  try {
    return await fn();
  } finally {
    phases[key] = (phases[key] ?? 0) + (Date.now() - t);
  }
}

function verifyContext(d: CaseDeps) {
  return (service: string, mode: "confirm" | "final", signal?: AbortSignal): VerifyContext => ({
    client: d.client,
    time: d.time,
    env: d.env,
    namespace: d.cfg.namespace,
    service,
    mode,
    windowMs: d.cfg.injectionTimeout * 1000,
    timeouts: { ...DEFAULT_TIMEOUTS, readyMs: d.env.readyTimeoutSeconds * 1000 },
    signal,
  });
}

function harness(d: CaseDeps): HarnessDeps {
  return {
    client: d.client,
    time: d.time,
    env: d.env,
    namespace: d.cfg.namespace,
    manifestPath: d.cfg.manifestPath,
    waitInterval: d.cfg.waitInterval,
    injectionTimeout: d.cfg.injectionTimeout,
    enableStrictRestart: d.cfg.enableStrictRestart,
    context: verifyContext(d),
    onPhase: d.onPhase,
  };
}

/** The namespace as it should be before a case: no chaos left, every workload Ready. */
export async function ensureHealthy(
  d: Pick<CaseDeps, "client" | "time" | "env" | "cfg" | "signal">,
): Promise<HealthSnapshot> {
  const ns = d.cfg.namespace;
  await removeAllChaos(d.client, d.time, ns);
  const s = await snapshot(d.client, ns);
  const expected = d.env.manifests.filter((m) => m.kind === "Deployment" || m.kind === "StatefulSet").length;
  if (allSettled(s) && s.length >= expected) return s;
  await applyAll(d.client, d.env.manifests, ns);
  return waitHealthy(d.client, d.time, ns, d.env.readyTimeoutSeconds, d.signal, d.cfg.waitInterval);
}

/** The executor as the case's identity uses it: its kubeconfig, nothing of the harness's. */
function asIdentity(e: Executor, id: AgentIdentity): Executor {
  return { run: (playbook, opts) => e.run(playbook, { ...opts, kubeconfig: id.kubeconfigPath }) };
}

/** A failure of the run met while the method acted, if any: the provider's, or a tool's. */
function runFailure(result: MethodResult): MethodError | undefined {
  if (result.error) return result.error;
  for (const a of result.attempts) {
    const e = executionError(a.execution);
    if (e) return { ...e, message: `attempt ${a.index}: ${e.message}` };
  }
  return undefined;
}

export async function runCase(pc: PlannedCase, d: CaseDeps): Promise<CaseRecord> {
  const phases: Phases = {};
  const errors: string[] = [];
  const startedAt = new Date().toISOString();
  const faults: Fault[] = pc.faults.map((f) => ({
    spec: failureSpec(f.failure),
    service: f.service,
    params: f.params,
  }));
  const rec: CaseRecord = {
    index: pc.index,
    failure: faults.map((f) => f.spec.id).join("+"),
    target: faults.map((f) => f.service).join("+"),
    faults: faults.map((f) => ({ failure: f.spec.id, service: f.service })),
    status: "error",
    success: false,
    injected: false,
    verdicts: {},
    attempts: 0,
    maxAttempts: d.maxAttempts,
    probeRounds: 0,
    phases,
    tokens: emptyUsage(),
    usageByRole: {},
    errors,
    method: d.method.name,
    model: d.model.id,
    startedAt,
    finishedAt: startedAt,
  };
  const h = harness(d);
  const injections: Injection[] = [];
  let identity: AgentIdentity | undefined;
  let errorCause: ErrorReason | undefined;
  let result: MethodResult | undefined;
  const signal = d.signal;
  try {
    d.onPhase("prepare");
    const baseline = await ensureHealthy(d);
    d.onPhase("inject");
    await timed(phases, "inject", async () => {
      injections.push(...(await new ChaosInjector(h).inject(faults)));
    });
    d.onPhase("confirm");
    const seen = await timed(phases, "confirm", () =>
      new FaultConfirmer(h).confirm(faults, injections, signal),
    );
    rec.verdicts.injection = seen;
    if (!seen.faultShown) {
      rec.status = "injection-failure";
      return rec;
    }
    rec.injected = true;
    d.onPhase("method");
    identity = await timed(phases, "identity", () =>
      createAgentIdentity(d.client, d.cfg.namespace, d.cfg.agentAccess),
    );
    const report = await buildDiagnosis(
      d.client,
      d.env.name,
      d.cfg.namespace,
      faults.map((f) => ({ failure: f.spec, service: f.service })),
      d.cfg.inventory,
    );
    const scorer = new CaseScorer({
      time: d.time,
      settleMs: d.cfg.settle * 1000,
      faults: faults.map((f) => ({ verifier: f.spec.verifier, service: f.service })),
      baseline,
      context: (service, s) => h.context(service, "final", s),
      faultsEndAt: faultsEndAt(injections),
    });
    const times = emptyTimes();
    const limits = probeLimits(d.method.probeLimits);
    const prober: Prober | undefined = d.method.probeLimits
      ? {
          probe: createProbe({
            kubeconfig: identity.kubeconfigPath,
            namespace: d.cfg.namespace,
            timeoutMs: limits.timeoutSeconds * 1000,
            maxOutput: limits.maxOutput,
            maxCommands: limits.maxCommands,
            sandbox: d.cfg.sandbox,
          }),
        }
      : undefined;
    const id = identity;
    const solved = await timed(phases, "method", () =>
      d.time.realtime(d.methodSpeed, () =>
        d.method.remediate({
          report,
          model: timedModel(d.model, times),
          executor: timedExecutor(asIdentity(d.executor, id), d.time, times),
          scorer: timedScorer(scorer, d.time, d.methodSpeed, times),
          prober: prober && timedProber(prober, times),
          launcher: timedLauncher(
            new SandboxLauncher({
              mode: d.cfg.sandbox,
              kubeconfig: id.kubeconfigPath,
              caseDir: d.caseDir,
              timeoutMs: d.cfg.playbookTimeout * 1000,
            }),
            d.time,
            times,
          ),
          caseDir: d.caseDir,
          maxAttempts: d.maxAttempts,
          signal,
        }),
      ),
    );
    result = solved;
    writeFileSync(
      join(d.caseDir, "conversation.json"),
      `${JSON.stringify({ report, conversation: solved.conversation, attempts: solved.attempts }, null, 2)}\n`,
    );
    rec.attempts = solved.attempts.length;
    rec.probeRounds = solved.attempts.reduce((n, a) => n + a.probeRounds, 0);
    rec.usageByRole = solved.usage;
    rec.tokens = Object.values(solved.usage).reduce(addUsage, emptyUsage());
    phases.execute = solved.attempts.reduce((n, a) => n + (a.execution?.durationMs ?? 0), 0);
    for (const a of solved.attempts) errors.push(...a.problems.map((p) => `attempt ${a.index}: ${p}`));
    const failed = runFailure(solved);
    if (failed) {
      errorCause = signal.aborted ? "interrupted" : failed.reason;
      errors.push(`method: ${failed.message}`);
      rec.status = signal.aborted ? "interrupted" : "error";
      return rec;
    }
    d.onPhase("settle and verify");
    const finalStart = await d.time.clusterNow();
    const v: Score = await timed(phases, "verify", () => scorer.score(signal));
    const finalMs = (await d.time.clusterNow()) - finalStart;
    rec.verdicts.reference = v.reference;
    rec.verdicts.health = v.health;
    rec.success = v.pass;
    rec.status = v.pass ? "success" : "failure";
    rec.remediation = { ...times, finalMs };
    rec.remediationSeconds = Math.round(remediationMs(times) / 100) / 10;
    return rec;
  } catch (e) {
    if (signal.aborted) {
      rec.status = "interrupted";
      errorCause = "interrupted";
    } else {
      rec.status = "error";
      errorCause = isMicroRemedError(e) ? (e.reason ?? "harness") : "harness";
      if (isMicroRemedError(e) && (e.code === "E_CLUSTER_UNREACHABLE" || e.code === "E_CLUSTER"))
        errorCause = e.code === "E_CLUSTER" ? "cluster" : "unreachable";
      errors.push(isMicroRemedError(e) ? e.oneLine() : ((e as Error).stack ?? String(e)));
    }
    return rec;
  } finally {
    d.onPhase("restore");
    await timed(phases, "restore", async () => {
      // cleanup must finish even after Ctrl-C: it does not listen to the run's signal
      await new ServiceRestorer(h).restore(faults, injections);
      if (identity) await timed(phases, "identity", () => identity?.remove() ?? Promise.resolve());
    }).catch((e) => {
      errors.push(`cleanup: ${isMicroRemedError(e) ? e.oneLine() : (e as Error).message}`);
      if (rec.status === "success") rec.status = "error";
      errorCause ??= "cluster";
    });
    if (rec.status !== "success") {
      const r = deriveReasons({
        status: rec.status,
        // ThinkRemed's Verification agent scored each attempt: both verdicts are in its score
        attempts: (result?.attempts ?? []).map((a) => ({
          ...a,
          verdicts: a.verdict && "reference" in a.verdict ? (a.verdict as Score) : undefined,
        })),
        verdicts: rec.verdicts,
        maxAttempts: d.maxAttempts,
        error:
          rec.status === "error"
            ? (errors.find((x) => x.startsWith("method:") || x.startsWith("error ")) ?? errors[0])
            : undefined,
        errorCause,
      });
      if (r.reason) rec.reason = r.reason;
      if ((result?.attempts.length ?? 0) > 1) rec.attemptReasons = r.attempts.map((a) => a ?? null);
    }
    rec.finishedAt = new Date().toISOString();
  }
}
