// The harness's roles that act on the namespace (context.ts declares each): a healthy namespace
// first, inject and confirm on src/faults and src/verify, and restore on src/faults and src/envs;
// each built with the settings of the run it reads. The roles around the method are
// method-roles.ts's; setup.ts puts them together for a case.

import { applyAll, restoreService, waitHealthy } from "../envs/deploy.js";
import { sourceManifest } from "../envs/env.js";
import { allSettled, snapshot } from "../envs/health.js";
import { MicroRemedError } from "../errors.js";
import { type Injection, inject, removeAllChaos, removeChaos } from "../faults/inject.js";
import { injectIncident, restoreSteps, type StepScope } from "../faults/steps.js";
import type { Clock } from "../kube/time.js";
import { verifierOf } from "../verify/registry.js";
import { mergeReadings } from "../verify/scorer.js";
import { type CheckScope, checkOf, type InjectionVerdict, type Verdict } from "../verify/types.js";
import { judgeUser, measureUser, type UserReading, userFacing } from "../verify/user.js";
import type { RunConfig } from "./config.js";
import {
  type CaseScope,
  type Confirmer,
  type Fault,
  faultServices,
  type Injector,
  type Preparer,
  type Restorer,
  scenarioOf,
  tierOf,
} from "./context.js";
import { startEqual } from "./reset.js";

/** Every workload of the case's namespace Ready (again). */
const untilHealthy = (ctx: CaseScope) =>
  waitHealthy(ctx.client, ctx.time, ctx.namespace, ctx.env.readyTimeoutSeconds, ctx.signal, ctx.waitInterval);

/** Whether a case is judged by what users see: it has a fault of the expert tier, or is an incident. */
export const judgedByUsers = (faults: Fault[]) => tierOf(faults) !== "reference";

/** The system's user-facing check for a case, against its baseline, requesting from pods its faults leave alone. */
export function userCheckOf(ctx: CaseScope, faults: Fault[], baseline?: UserReading) {
  const check = ctx.env.userCheck;
  if (!check || !judgedByUsers(faults)) return undefined;
  return userFacing(check, baseline, faultServices(faults));
}

/**
 * No chaos left, every workload Ready (the manifests applied again where some are missing or
 * broken); for a case judged by what users see, their requests measured healthy first.
 */
export const healthyNamespace = (cfg: Pick<RunConfig, "report">): Preparer => ({
  async prepare(ctx, faults) {
    await removeAllChaos(ctx.client, ctx.time, ctx.namespace);
    // cases start equal: the namespace as it was after deploy, whatever the cases before did
    await startEqual(ctx);
    const s = await snapshot(ctx.client, ctx.namespace);
    const expected = ctx.env.manifests.filter(
      (m) => m.kind === "Deployment" || m.kind === "StatefulSet",
    ).length;
    let health = s;
    if (!allSettled(s) || s.length < expected) {
      await applyAll(ctx.client, ctx.env.manifests, ctx.namespace);
      health = await untilHealthy(ctx);
    }
    const check = ctx.env.userCheck;
    // what users see is measured for a case judged by it, and for the symptom level's alert
    if (!check || !(judgedByUsers(faults) || cfg.report === "symptom")) return { health };
    const user = await settledUser(ctx, check, faultServices(faults));
    if (typeof user === "string")
      throw new MicroRemedError(
        "E_CLUSTER",
        `cannot measure what users see before the fault: ${user}`,
        undefined,
        {
          reason: "cluster",
        },
      );
    const bad = judgeUser(user, undefined, check);
    if (!bad.pass)
      throw new MicroRemedError(
        "E_CLUSTER",
        `the healthy ${ctx.env.name} fails its users' requests before any fault: ${bad.reason}`,
        "check the system's userCheck in env.yaml against the deployed system",
        { reason: "cluster" },
      );
    return { health, user };
  },
});

/** Cluster time a system just put back may take before its users are served (a retry storm's queues draining, pods just Ready). */
const SETTLE_USERS_MS = 120_000;

/**
 * What users see before the fault, once the system serves them: a reset that rolled pods back
 * leaves queues to drain and new pods warming, so a failing reading is taken again every 15 s of
 * cluster time for up to two minutes, as an operator waits before a drill; the last is returned.
 */
async function settledUser(
  ctx: Pick<CaseScope, "time" | "signal"> & Parameters<typeof measureUser>[0],
  check: Parameters<typeof measureUser>[1],
  avoid: string[],
): Promise<UserReading | string> {
  const until = (await ctx.time.clusterNow()) + SETTLE_USERS_MS;
  for (;;) {
    const user = await measureUser(ctx, check, avoid);
    if (typeof user !== "string" && judgeUser(user, undefined, check).pass) return user;
    if ((await ctx.time.clusterNow()) >= until) return user;
    await ctx.time.sleep(15_000, ctx.signal);
  }
}

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

/**
 * Whether users' requests fail now, by the system's user check: an answer that is an error or
 * none, as any monitoring counts it (latency needs the baseline, which a story's steps outlive);
 * undefined where the system has no check, or no pod to request from.
 */
export function usersFailing(scope: CheckScope, avoid: string[]): StepScope["usersFail"] {
  const check = scope.env.userCheck;
  if (!check) return undefined;
  return async () => {
    const user = await measureUser(scope, check, avoid);
    return typeof user === "string" ? undefined : !judgeUser(user, undefined, check).pass;
  };
}

/** What an incident's steps run with: the case's cluster, clock, namespace and the system's manifests. */
const stepScope = (ctx: CaseScope): StepScope => ({
  client: ctx.client,
  time: ctx.time,
  namespace: ctx.namespace,
  manifests: ctx.env.manifests,
  readyTimeoutSeconds: ctx.env.readyTimeoutSeconds,
  signal: ctx.signal,
});

export const chaosInjector: Injector = {
  async inject(ctx, faults) {
    const out: Injection[] = [];
    for (const f of faults) {
      const scenario = scenarioOf(f);
      if (scenario) {
        const watch = usersFailing(ctx, faultServices(faults));
        out.push(
          await injectIncident(
            { ...stepScope(ctx), ...(watch ? { usersFail: watch } : {}) },
            scenario,
            f.target,
          ),
        );
        continue;
      }
      out.push(
        await timed(ctx.time, () => inject(ctx.client, f.failure, ctx.namespace, f.target, f.params, f.vars)),
      );
    }
    return out;
  },
};

/** The reference's strict restart: restart the target, inject again. */
async function restartAndInject(
  ctx: CaseScope,
  f: Fault,
  injections: Injection[],
  onPhase: (phase: string) => void,
) {
  onPhase(
    `strict restart (the fault did not show within ${ctx.windowMs / 1000} s): restarting ${f.target} and injecting again`,
  );
  const inj = injections.find((i) => i.target === f.target);
  if (inj) await removeChaos(ctx.client, ctx.time, inj);
  const restartedAt = { "kubectl.kubernetes.io/restartedAt": new Date().toISOString() };
  await ctx.client.patch(
    "apps/v1",
    "Deployment",
    ctx.namespace,
    f.target,
    { spec: { template: { metadata: { annotations: restartedAt } } } },
    "strategic",
  );
  await untilHealthy(ctx);
  if (inj)
    Object.assign(
      inj,
      await timed(ctx.time, () => inject(ctx.client, f.failure, ctx.namespace, f.target, inj.params)),
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

/**
 * Each fault's own check in confirm mode: the fault shows when the check finds the system
 * unhealthy. A case judged by what users see shows its faults there: its users' requests fail or
 * slow down within the window (the longest a fault of it may take, or the injection timeout).
 */
export const faultConfirmer = (
  cfg: Pick<RunConfig, "enableStrictRestart">,
  onPhase: (phase: string) => void,
): Confirmer => ({
  async confirm(ctx, faults, injections, baseline) {
    const users = userCheckOf(ctx, faults, baseline.user);
    const windowSeconds = ctx.windowMs / 1000;
    if (users) {
      const seconds = Math.max(windowSeconds, ...faults.map((f) => f.failure.confirmSeconds ?? 0));
      return confirmation(await users.verify(ctx, "confirm", true, seconds * 1000), seconds);
    }
    const seen: InjectionVerdict[] = [];
    for (const f of faults) {
      const look = () => verifierOf(f.failure, f.vars).verify(checkOf(ctx, f.target, "confirm"));
      let v = await look();
      let restarted = false;
      if (v.pass && cfg.enableStrictRestart) {
        restarted = true;
        await restartAndInject(ctx, f, injections, onPhase);
        v = await look();
      }
      seen.push(confirmation(v, windowSeconds, restarted));
    }
    if (seen.length === 1) return seen[0];
    return { faultShown: seen.every((s) => s.faultShown), ...mergeReadings(seen) };
  },
});

/** The objects an injection changed, put back as the system's manifests have them (a created one deleted). */
async function restoreTouched(ctx: CaseScope, inj: Injection): Promise<void> {
  for (const t of inj.touched ?? []) {
    if (t.kind === "Deployment") continue; // the fault's target: restored below from its source manifest
    if (t.action === "created") {
      await ctx.client.delete(t.apiVersion, t.kind, ctx.namespace, t.name);
      continue;
    }
    const original = ctx.env.manifests.find((m) => m.kind === t.kind && m.metadata?.name === t.name);
    if (original) await ctx.client.apply(original, ctx.namespace);
  }
}

export const serviceRestorer = (cfg: Pick<RunConfig, "manifestPath">): Restorer => ({
  async restore(ctx, faults, injections) {
    for (const inj of injections) {
      // an incident's steps touched objects of several services: each put back as deployed
      if (inj.causes) {
        await restoreSteps({ ...stepScope(ctx), signal: undefined }, inj.touched ?? []);
        continue;
      }
      await removeChaos(ctx.client, ctx.time, inj);
      await restoreTouched(ctx, inj);
    }
    for (const f of faults) {
      if (f.failure.incident) continue;
      const src = sourceManifest(ctx.env, f.target, cfg.manifestPath);
      await restoreService(ctx.client, ctx.time, src, ctx.namespace, ctx.env.readyTimeoutSeconds);
    }
  },
});
