// One case, as architecture.md draws it: healthy namespace, inject, confirm, report, method,
// settle, verify (reference check + namespace health), and always clean up: stop the chaos,
// restore the targets from their original manifests, wait until healthy.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Executor } from "../ansible/executor.js";
import { type FailureSpec, failure as failureSpec } from "../chaos/catalog.js";
import { type Injection, inject, removeAllChaos, removeChaos } from "../chaos/inject.js";
import type { KubeClient } from "../cluster/client.js";
import type { ClusterTime } from "../cluster/time.js";
import { applyAll, restoreService, waitHealthy } from "../envs/deploy.js";
import { type EnvSpec, sourceManifest } from "../envs/env.js";
import { allSettled, type HealthSnapshot, snapshot } from "../envs/health.js";
import { isMicroRemedError } from "../errors.js";
import type { Method } from "../methods/types.js";
import { addUsage, emptyUsage, type Model } from "../models/types.js";
import { openProbe, probeLimitsOf } from "../probe/index.js";
import { verifyNamespaceHealth } from "../verify/health.js";
import { VERIFIERS } from "../verify/registry.js";
import { DEFAULT_TIMEOUTS, type Verdict, type VerifyContext } from "../verify/types.js";
import type { RunConfig } from "./config.js";
import { buildReport } from "./context.js";
import type { PlannedCase } from "./experiments.js";
import type { CaseRecord, Phases } from "./records.js";

export interface CaseDeps {
  client: KubeClient;
  time: ClusterTime;
  env: EnvSpec;
  cfg: RunConfig;
  method: Method;
  model: Model;
  executor: Executor;
  caseDir: string;
  onPhase: (phase: string) => void;
  signal: AbortSignal;
  /** Clock speed of the embedded cluster while the method acts (undefined: the run's speed). */
  methodSpeed?: number;
}

const now = () => Date.now();

async function timed<T>(phases: Phases, key: keyof Phases, fn: () => Promise<T>): Promise<T> {
  const t = now();
  try {
    return await fn();
  } finally {
    phases[key] = (phases[key] ?? 0) + (now() - t);
  }
}

function verifyCtx(
  d: CaseDeps,
  service: string,
  mode: "confirm" | "final",
  signal: AbortSignal,
): VerifyContext {
  return {
    client: d.client,
    time: d.time,
    env: d.env,
    namespace: d.cfg.namespace,
    service,
    mode,
    windowMs: d.cfg.injectionTimeout * 1000,
    timeouts: { ...DEFAULT_TIMEOUTS, readyMs: d.env.readyTimeoutSeconds * 1000 },
    signal,
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

/** Combine the verdicts of several faults' checks. */
function merge(vs: Verdict[]): Verdict {
  if (vs.length === 1) return vs[0];
  return {
    pass: vs.every((v) => v.pass),
    reason: vs.map((v) => v.reason).join(" | "),
    measurements: { faults: vs.map((v) => v.measurements) },
  };
}

export async function runCase(pc: PlannedCase, d: CaseDeps): Promise<CaseRecord> {
  const phases: Phases = {};
  const errors: string[] = [];
  const startedAt = new Date().toISOString();
  const faults = pc.faults.map((f) => ({
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
  const injections: Injection[] = [];
  const signal = d.signal;
  let clusterStart = 0;
  try {
    d.onPhase("prepare");
    const baseline = await ensureHealthy(d);
    d.onPhase("inject");
    clusterStart = d.time.elapsed();
    await timed(phases, "inject", async () => {
      for (const f of faults)
        injections.push(await inject(d.client, f.spec, d.cfg.namespace, f.service, f.params));
    });
    d.onPhase("confirm");
    const seen = await timed(phases, "confirm", () => confirmAll(d, faults, injections, signal));
    rec.verdicts.injection = seen;
    if (!seen.pass) {
      rec.status = "injection-failure";
      return rec;
    }
    rec.injected = true;
    d.onPhase("method");
    const report = await buildReport(
      d.client,
      d.env.name,
      d.cfg.namespace,
      faults.map((f) => ({ failure: f.spec, service: f.service })),
      d.cfg.inventory,
    );
    const facts = {
      caseId: `${pc.index}`,
      namespace: d.cfg.namespace,
      service: faults[0].service,
      failure: faults[0].spec.id,
      faults: rec.faults,
    };
    // the Probe agent's sandbox: read-only kubectl in the case's namespace, limits from the method
    const sandbox = openProbe(d.client.kc, d.cfg.namespace, probeLimitsOf(d.method));
    const methodSpeed = d.methodSpeed ?? d.time.fastSpeed;
    const result = await timed(phases, "method", () =>
      d.time.realtime(methodSpeed, () =>
        d.method.remediate({
          report,
          facts,
          model: d.model,
          executor: d.executor,
          caseDir: d.caseDir,
          maxAttempts: d.cfg.maxAttempts ?? 2,
          signal,
          // the Verification agent waits on the cluster as the runner does: at full speed
          verify: () =>
            d.time.fast(methodSpeed, async () => {
              await d.time.sleep(d.cfg.settle * 1000, signal);
              return finalVerdict(d, faults, baseline, signal).then((v) => v.combined);
            }),
          probe: sandbox.probe,
        }),
      ),
    ).finally(sandbox.close);
    writeFileSync(
      join(d.caseDir, "conversation.json"),
      `${JSON.stringify({ report, conversation: result.conversation, attempts: result.attempts }, null, 2)}\n`,
    );
    rec.attempts = result.attempts.length;
    rec.probeRounds = result.attempts.reduce((n, a) => n + a.probeRounds, 0);
    rec.usageByRole = result.usage;
    rec.tokens = Object.values(result.usage).reduce(addUsage, emptyUsage());
    phases.execute = result.attempts.reduce((n, a) => n + (a.execution?.durationMs ?? 0), 0);
    if (result.error) errors.push(`method: ${result.error}`);
    for (const a of result.attempts) errors.push(...a.problems.map((p) => `attempt ${a.index}: ${p}`));
    d.onPhase("settle");
    await timed(phases, "settle", () => d.time.sleep(d.cfg.settle * 1000, signal));
    d.onPhase("verify");
    const v = await timed(phases, "verify", () => finalVerdict(d, faults, baseline, signal));
    rec.verdicts.reference = v.reference;
    rec.verdicts.health = v.health;
    rec.success = v.reference.pass && v.health.pass;
    rec.status = rec.success ? "success" : "failure";
    rec.remediationSeconds = Math.round((d.time.elapsed() - clusterStart) / 100) / 10;
    return rec;
  } catch (e) {
    if (signal.aborted) rec.status = "interrupted";
    else {
      rec.status = "error";
      errors.push(isMicroRemedError(e) ? e.oneLine() : ((e as Error).stack ?? String(e)));
    }
    return rec;
  } finally {
    d.onPhase("restore");
    await timed(phases, "restore", () => cleanup(d, faults, injections)).catch((e) => {
      errors.push(`cleanup: ${isMicroRemedError(e) ? e.oneLine() : (e as Error).message}`);
      if (rec.status === "success") rec.status = "error";
    });
    rec.finishedAt = new Date().toISOString();
  }
}

async function confirmAll(
  d: CaseDeps,
  faults: { spec: FailureSpec; service: string }[],
  injections: Injection[],
  signal: AbortSignal,
): Promise<Verdict> {
  const seen: Verdict[] = [];
  for (const f of faults) {
    let v = await VERIFIERS[f.spec.verifier].verify(verifyCtx(d, f.service, "confirm", signal));
    let restarted = false;
    if (v.pass && d.cfg.enableStrictRestart) {
      // the reference's strict restart: restart the target, inject again, look once more
      d.onPhase(
        `strict restart (the fault did not show within ${d.cfg.injectionTimeout} s): restarting ${f.service} and injecting again`,
      );
      restarted = true;
      const inj = injections.find((i) => i.service === f.service);
      if (inj) await removeChaos(d.client, d.time, inj);
      await d.client.patch(
        "apps/v1",
        "Deployment",
        d.cfg.namespace,
        f.service,
        {
          spec: {
            template: {
              metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": new Date().toISOString() } },
            },
          },
        },
        "strategic",
      );
      await waitHealthy(
        d.client,
        d.time,
        d.cfg.namespace,
        d.env.readyTimeoutSeconds,
        signal,
        d.cfg.waitInterval,
      );
      if (inj) await inject(d.client, f.spec, d.cfg.namespace, f.service, inj.params);
      v = await VERIFIERS[f.spec.verifier].verify(verifyCtx(d, f.service, "confirm", signal));
    }
    // confirm mode: pass means the system still looks healthy, i.e. the fault did not show
    seen.push({
      ...v,
      pass: !v.pass,
      reason: v.pass
        ? `the fault did not show within ${d.cfg.injectionTimeout} s${restarted ? " (again after a strict restart of the target)" : ""}: ${v.reason}`
        : v.reason,
    });
  }
  return merge(seen);
}

async function finalVerdict(
  d: CaseDeps,
  faults: { spec: FailureSpec; service: string }[],
  baseline: HealthSnapshot,
  signal: AbortSignal,
) {
  const refs: Verdict[] = [];
  for (const f of faults)
    refs.push(await VERIFIERS[f.spec.verifier].verify(verifyCtx(d, f.service, "final", signal)));
  const reference = merge(refs);
  // A failed reference check decides the case: then health is read once instead of waited for.
  const health = await verifyNamespaceHealth(
    verifyCtx(d, faults[0].service, "final", signal),
    baseline,
    reference.pass,
  );
  return {
    reference,
    health,
    combined: {
      pass: reference.pass && health.pass,
      reason: reference.pass ? health.reason : reference.reason,
      measurements: { reference: reference.measurements, health: health.measurements },
    },
  };
}

async function cleanup(
  d: CaseDeps,
  faults: { spec: FailureSpec; service: string }[],
  injections: Injection[],
) {
  // Cleanup must finish even after Ctrl-C: it does not listen to the run's signal.
  for (const inj of injections) await removeChaos(d.client, d.time, inj);
  for (const f of faults) {
    const src = sourceManifest(d.env, f.service, d.cfg.manifestPath);
    await restoreService(d.client, d.time, src, d.cfg.namespace, d.env.readyTimeoutSeconds);
  }
}
