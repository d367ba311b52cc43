// The harness's side of a Harbor task: the embedded cluster reached through the admin kubeconfig
// (root's, in the task's state folder), its clock set for the phase, and the one context the
// runner's roles (src/runner/roles.ts) read: cluster, clock, system, namespace and settings. The
// agent never holds any of it.
import { failure as failureSpec } from "../chaos/catalog.js";
import { KubeClient } from "../cluster/client.js";
import { loadKubeConfig } from "../cluster/connect.js";
import { ClusterTime } from "../cluster/time.js";
import { loadEnv } from "../envs/env.js";
import { resolveConfig, withDefaults } from "../runner/config.js";
import { type CaseContext, caseContext, type Fault } from "../runner/context.js";
import type { HarborCase } from "./case.js";

/** Where the embedded cluster's clock speed is set (as ClusterTime sets it): kube-system, out of the agent's sight. */
export async function setClock(client: KubeClient, speed: number): Promise<void> {
  await client.patch("v1", "ConfigMap", "kube-system", "cluster-clock", { data: { speed: String(speed) } });
}

export interface Harness {
  ctx: CaseContext;
  faults: Fault[];
}

/**
 * The case's context at the harness's speed. The roles used here (prepare, inject, confirm,
 * diagnose, score) read the cluster, the clock, the system and the run's settings; the method's
 * parts (method, model, executor) belong to the agent, which Harbor runs, so none is given.
 */
export async function openHarness(c: HarborCase, kubeconfig: string, dir: string): Promise<Harness> {
  const { kc } = loadKubeConfig({ kubeconfig });
  const client = new KubeClient(kc);
  await setClock(client, c.speed);
  const time = await ClusterTime.of(client);
  const cfg = resolveConfig(
    withDefaults({
      // the model is Harbor's agent's, which the harness never calls: named for the record only
      model: "harbor-agent",
      env: c.env,
      namespace: c.namespace,
      report: c.report,
      seed: c.seed,
      settle: c.settle,
      hold: c.hold,
      injectionTimeout: c.injectionTimeout,
    }),
  );
  const ctx = caseContext({
    client,
    time,
    env: loadEnv(c.env),
    cfg,
    signal: new AbortController().signal,
    caseDir: dir,
    onPhase: () => {},
    maxAttempts: 1,
  } as unknown as Parameters<typeof caseContext>[0]);
  const faults = c.faults.map((f) => ({
    spec: failureSpec(f.failure),
    service: f.service,
    params: f.params,
    vars: f.vars,
  }));
  return { ctx, faults };
}
