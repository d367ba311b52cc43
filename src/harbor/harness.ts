// The harness's side of a Harbor task: the embedded cluster reached through the admin kubeconfig
// (root's, in the task's state folder), its clock set for the phase, the case's scope the runner's
// roles (src/runner/roles.ts, method-roles.ts) act in, and those roles built with the task's
// settings. The agent never holds any of it.

import { loadEnv } from "../envs/env.js";
import { failure as failureSpec } from "../faults/catalog.js";
import { KubeClient } from "../kube/client.js";
import { loadKubeConfig } from "../kube/connect.js";
import { ClusterTime } from "../kube/time.js";
import { resolveConfig, withDefaults } from "../runner/config.js";
import { type CaseRoles, type CaseScope, caseScope, type Fault } from "../runner/context.js";
import { caseScorer, levelDiagnoser } from "../runner/method-roles.js";
import { chaosInjector, faultConfirmer, healthyNamespace } from "../runner/roles.js";
import type { HarborCase } from "./case.js";

/** Where the embedded cluster's clock speed is set (as ClusterTime sets it): kube-system, out of the agent's sight. */
export async function setClock(client: KubeClient, speed: number): Promise<void> {
  await client.patch("v1", "ConfigMap", "kube-system", "cluster-clock", { data: { speed: String(speed) } });
}

export interface Harness {
  ctx: CaseScope;
  /** The runner's own roles for the steps the harness takes, built with the task's settings. */
  roles: Pick<CaseRoles, "preparer" | "injector" | "confirmer" | "diagnoser" | "scorer">;
  faults: Fault[];
  /** The inventory the agent's playbooks run with (the run's --inventory default). */
  inventory: string;
}

/**
 * The case's scope at the harness's speed. The roles used here (prepare, inject, confirm,
 * diagnose, score) read the cluster, the clock, the system and the run's settings; the method's
 * parts (method, model, executor) belong to the agent, which Harbor runs, so none is given.
 */
export async function openHarness(c: HarborCase, kubeconfig: string): Promise<Harness> {
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
  const ctx = caseScope(
    { client, time, env: loadEnv(c.env), namespace: c.namespace, signal: new AbortController().signal },
    cfg,
  );
  const roles = {
    preparer: healthyNamespace(cfg),
    injector: chaosInjector,
    confirmer: faultConfirmer(cfg, () => {}),
    diagnoser: levelDiagnoser(cfg),
    scorer: caseScorer(cfg),
  };
  const faults = c.faults.map(
    (f): Fault => ({
      failure: failureSpec(f.failure),
      target: f.target,
      params: f.params,
      vars: f.vars,
    }),
  );
  return { ctx, roles, faults, inventory: cfg.inventory };
}
