// The harness's roles as a run has them (context.ts declares each): a healthy namespace first,
// inject and confirm on src/chaos and src/verify, the agent's identity (src/identity), the
// diagnosis report (src/diagnosis), the scorer (src/verify), and restore on src/chaos and
// src/envs. A test hands runCase its own in the case's context; these fill in the rest.
import { type Injection, inject, removeAllChaos, removeChaos } from "../chaos/inject.js";
import type { Clock } from "../cluster/time.js";
import { buildDiagnosis } from "../diagnosis/build.js";
import { applyAll, restoreService, waitHealthy } from "../envs/deploy.js";
import { sourceManifest } from "../envs/env.js";
import { allSettled, snapshot } from "../envs/health.js";
import { createAgentIdentity } from "../identity/agent.js";
import { VERIFIERS } from "../verify/registry.js";
import { CaseScorer, mergeReadings, namespaceHealth } from "../verify/scorer.js";
import { checkOf, type InjectionVerdict, type Verdict } from "../verify/types.js";
import type { CaseContext, CaseRoles, Confirmer, Fault, Injector, Preparer, Restorer } from "./context.js";

/** Every workload of the case's namespace Ready (again). */
const untilHealthy = (ctx: CaseContext) =>
  waitHealthy(
    ctx.client,
    ctx.time,
    ctx.namespace,
    ctx.env.readyTimeoutSeconds,
    ctx.signal,
    ctx.cfg.waitInterval,
  );

/** No chaos left, every workload Ready; the manifests applied again where some are missing or broken. */
export const healthyNamespace: Preparer = {
  async prepare(ctx) {
    await removeAllChaos(ctx.client, ctx.time, ctx.namespace);
    const s = await snapshot(ctx.client, ctx.namespace);
    const expected = ctx.env.manifests.filter(
      (m) => m.kind === "Deployment" || m.kind === "StatefulSet",
    ).length;
    if (allSettled(s) && s.length >= expected) return s;
    await applyAll(ctx.client, ctx.env.manifests, ctx.namespace);
    return untilHealthy(ctx);
  },
};

/** The injection, with the cluster time at which its chaos ends by its own duration (counted from
 * just before the create, so never later than Chaos Mesh's own count). */
async function timed(time: Clock, injecting: () => Promise<Injection>): Promise<Injection> {
  const start = await time.clusterNow();
  const inj = await injecting();
  if (inj.durationMs !== undefined) inj.endsAt = start + inj.durationMs;
  return inj;
}

/** The cluster time by which every fault of the case still holds (the first chaos to end). */
export function faultsEndAt(injections: Injection[]): number | undefined {
  const ends = injections.flatMap((i) => (i.endsAt === undefined ? [] : [i.endsAt]));
  return ends.length ? Math.min(...ends) : undefined;
}

export const chaosInjector: Injector = {
  async inject(ctx, faults) {
    const out: Injection[] = [];
    for (const f of faults)
      out.push(await timed(ctx.time, () => inject(ctx.client, f.spec, ctx.namespace, f.service, f.params)));
    return out;
  },
};

/** The reference's strict restart: restart the target, inject again. */
async function restartAndInject(ctx: CaseContext, f: Fault, injections: Injection[]) {
  ctx.onPhase(
    `strict restart (the fault did not show within ${ctx.cfg.injectionTimeout} s): restarting ${f.service} and injecting again`,
  );
  const inj = injections.find((i) => i.service === f.service);
  if (inj) await removeChaos(ctx.client, ctx.time, inj);
  const restartedAt = { "kubectl.kubernetes.io/restartedAt": new Date().toISOString() };
  await ctx.client.patch(
    "apps/v1",
    "Deployment",
    ctx.namespace,
    f.service,
    { spec: { template: { metadata: { annotations: restartedAt } } } },
    "strategic",
  );
  await untilHealthy(ctx);
  if (inj)
    Object.assign(
      inj,
      await timed(ctx.time, () => inject(ctx.client, f.spec, ctx.namespace, f.service, inj.params)),
    );
}

/**
 * What a check in confirm mode says of its fault. It passes while the system still looks healthy:
 * the fault did not show. A check that could not measure (no metrics, no volume to write to)
 * says nothing either way, so the fault is not taken as shown: a case whose fault cannot take
 * effect must never be scored against the model.
 */
export function confirmation(v: Verdict, timeoutSeconds: number, restarted = false): InjectionVerdict {
  const { pass: healthy, ...reading } = v;
  const again = restarted ? " (again after a strict restart of the target)" : "";
  if (!healthy && v.inconclusive)
    return {
      ...reading,
      faultShown: false,
      reason: `the fault's check could not measure within ${timeoutSeconds} s${again}, so the fault was not seen to take effect: ${v.reason}`,
    };
  return {
    ...reading,
    faultShown: !healthy,
    reason: healthy ? `the fault did not show within ${timeoutSeconds} s${again}: ${v.reason}` : v.reason,
  };
}

/** Each fault's own check in confirm mode: the fault shows when the check finds the system unhealthy. */
export const faultConfirmer: Confirmer = {
  async confirm(ctx, faults, injections) {
    const seen: InjectionVerdict[] = [];
    for (const f of faults) {
      const look = () => VERIFIERS[f.spec.verifier].verify(checkOf(ctx, f.service, "confirm"));
      let v = await look();
      let restarted = false;
      if (v.pass && ctx.cfg.enableStrictRestart) {
        restarted = true;
        await restartAndInject(ctx, f, injections);
        v = await look();
      }
      seen.push(confirmation(v, ctx.cfg.injectionTimeout, restarted));
    }
    if (seen.length === 1) return seen[0];
    return { faultShown: seen.every((s) => s.faultShown), ...mergeReadings(seen) };
  },
};

export const serviceRestorer: Restorer = {
  async restore(ctx, faults, injections) {
    for (const inj of injections) await removeChaos(ctx.client, ctx.time, inj);
    for (const f of faults) {
      const src = sourceManifest(ctx.env, f.service, ctx.cfg.manifestPath);
      await restoreService(ctx.client, ctx.time, src, ctx.namespace, ctx.env.readyTimeoutSeconds);
    }
  },
};

export const DEFAULT_ROLES: CaseRoles = {
  prepare: healthyNamespace,
  injector: chaosInjector,
  confirmer: faultConfirmer,
  identity: { issue: (ctx) => createAgentIdentity(ctx.client, ctx.namespace, ctx.cfg.agentAccess) },
  diagnoser: {
    diagnose: (ctx, faults) =>
      buildDiagnosis(
        ctx.client,
        ctx.env.name,
        ctx.namespace,
        faults.map((f) => ({ failure: f.spec, service: f.service })),
        ctx.cfg.inventory,
      ),
  },
  scorer: {
    scorer: (ctx, c) =>
      new CaseScorer(ctx, {
        faults: c.faults.map((f) => ({ check: VERIFIERS[f.spec.verifier], service: f.service })),
        health: namespaceHealth(c.baseline),
        faultsEndAt: faultsEndAt(c.injections),
      }),
  },
  restorer: serviceRestorer,
};
