// The roles of a case that belong to the harness, each a one-method interface:
//   inject  → confirm → solve (src/methods: Method) → execute (src/ansible: Executor)
//   → settle + score (src/verify: Scorer) → restore
// This file holds inject, confirm and restore, built on src/chaos and src/envs; the pipeline
// that runs them in order is src/runner/case.ts.
import type { FailureSpec } from "../chaos/catalog.js";
import { type Injection, inject, removeChaos } from "../chaos/inject.js";
import type { KubeClient } from "../cluster/client.js";
import type { ClusterTime } from "../cluster/time.js";
import { restoreService, waitHealthy } from "../envs/deploy.js";
import { type EnvSpec, sourceManifest } from "../envs/env.js";
import { VERIFIERS } from "../verify/registry.js";
import { mergeReadings } from "../verify/scorer.js";
import type { InjectionVerdict, VerifyContext } from "../verify/types.js";

export interface Fault {
  spec: FailureSpec;
  service: string;
  params?: Record<string, unknown>;
}

export interface Injector {
  inject(faults: Fault[]): Promise<Injection[]>;
}

export interface Confirmer {
  /** Whether every fault shows (its check finds the system unhealthy) within the window. */
  confirm(faults: Fault[], injections: Injection[], signal: AbortSignal): Promise<InjectionVerdict>;
}

export interface Restorer {
  /** Stop the chaos and restore the targets from their original manifests; never listens to Ctrl-C. */
  restore(faults: Fault[], injections: Injection[]): Promise<void>;
}

export interface HarnessDeps {
  client: KubeClient;
  time: ClusterTime;
  env: EnvSpec;
  namespace: string;
  manifestPath?: string;
  waitInterval: number;
  injectionTimeout: number;
  enableStrictRestart: boolean;
  /** A verify context for a service in a mode. */
  context: (service: string, mode: "confirm" | "final", signal?: AbortSignal) => VerifyContext;
  onPhase: (phase: string) => void;
}

export class ChaosInjector implements Injector {
  constructor(private readonly d: HarnessDeps) {}

  async inject(faults: Fault[]): Promise<Injection[]> {
    const out: Injection[] = [];
    for (const f of faults)
      out.push(
        await timed(this.d.time, () => inject(this.d.client, f.spec, this.d.namespace, f.service, f.params)),
      );
    return out;
  }
}

/** The injection, with the cluster time at which its chaos ends by its own duration (counted from
 * just before the create, so never later than Chaos Mesh's own count). */
async function timed(time: ClusterTime, injecting: () => Promise<Injection>): Promise<Injection> {
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

export class FaultConfirmer implements Confirmer {
  constructor(private readonly d: HarnessDeps) {}

  async confirm(faults: Fault[], injections: Injection[], signal: AbortSignal): Promise<InjectionVerdict> {
    const seen: InjectionVerdict[] = [];
    for (const f of faults) {
      const look = () => VERIFIERS[f.spec.verifier].verify(this.d.context(f.service, "confirm", signal));
      let v = await look();
      let restarted = false;
      if (v.pass && this.d.enableStrictRestart) {
        restarted = true;
        await this.restartAndInject(f, injections, signal);
        v = await look();
      }
      // in confirm mode the check passes while the system still looks healthy: the fault did not show
      const { pass: healthy, ...reading } = v;
      seen.push({
        ...reading,
        faultShown: !healthy,
        reason: healthy
          ? `the fault did not show within ${this.d.injectionTimeout} s${restarted ? " (again after a strict restart of the target)" : ""}: ${v.reason}`
          : v.reason,
      });
    }
    if (seen.length === 1) return seen[0];
    return { faultShown: seen.every((s) => s.faultShown), ...mergeReadings(seen) };
  }

  /** The reference's strict restart: restart the target, inject again. */
  private async restartAndInject(f: Fault, injections: Injection[], signal: AbortSignal) {
    const d = this.d;
    d.onPhase(
      `strict restart (the fault did not show within ${d.injectionTimeout} s): restarting ${f.service} and injecting again`,
    );
    const inj = injections.find((i) => i.service === f.service);
    if (inj) await removeChaos(d.client, d.time, inj);
    await d.client.patch(
      "apps/v1",
      "Deployment",
      d.namespace,
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
    await waitHealthy(d.client, d.time, d.namespace, d.env.readyTimeoutSeconds, signal, d.waitInterval);
    if (inj)
      Object.assign(
        inj,
        await timed(d.time, () => inject(d.client, f.spec, d.namespace, f.service, inj.params)),
      );
  }
}

export class ServiceRestorer implements Restorer {
  constructor(private readonly d: HarnessDeps) {}

  async restore(faults: Fault[], injections: Injection[]): Promise<void> {
    const d = this.d;
    for (const inj of injections) await removeChaos(d.client, d.time, inj);
    for (const f of faults) {
      const src = sourceManifest(d.env, f.service, d.manifestPath);
      await restoreService(d.client, d.time, src, d.namespace, d.env.readyTimeoutSeconds);
    }
  }
}
