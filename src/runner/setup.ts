// A case's setup from the run's parts: its scope in the worker's namespace, the default roles
// (roles.ts, method-roles.ts, noise.ts, solve.ts), each built with the settings it reads, and the
// labels its record carries. A test hands its own roles in `roles`; the defaults fill in the rest.
import type { Executor } from "../ansible/executor.js";
import type { EnvSpec } from "../envs/env.js";
import type { KubeClient } from "../kube/client.js";
import type { Clock } from "../kube/time.js";
import type { Model } from "../llm/types.js";
import type { Method } from "../methods/types.js";
import type { RunConfig } from "./config.js";
import { type CaseRoles, type CaseSetup, caseScope } from "./context.js";
import {
  auditLocalizer,
  caseScorer,
  levelDiagnoser,
  namespaceIdentity,
  statementReader,
} from "./method-roles.js";
import { runNoise } from "./noise.js";
import { chaosInjector, faultConfirmer, healthyNamespace, serviceRestorer } from "./roles.js";
import { methodSolver } from "./solve.js";

export interface CaseParts {
  client: KubeClient;
  time: Clock;
  env: EnvSpec;
  /** The run's settings, with this case's namespace. */
  cfg: RunConfig;
  method: Method;
  model: Model;
  executor: Executor;
  /** T_max in force (the method's, or --max-attempts). */
  maxAttempts: number;
  caseDir: string;
  onPhase: (phase: string) => void;
  signal: AbortSignal;
  /** Roles of the caller's in place of the defaults. */
  roles?: Partial<CaseRoles>;
}

/** The default roles for a run's settings: noise with --noise, and always for an incident. */
export function defaultRoles(p: Omit<CaseParts, "client" | "time" | "env" | "signal" | "roles">): CaseRoles {
  const { cfg } = p;
  return {
    preparer: healthyNamespace(cfg),
    injector: chaosInjector,
    confirmer: faultConfirmer(cfg, p.onPhase),
    noise: runNoise(cfg),
    identity: namespaceIdentity(cfg),
    diagnoser: levelDiagnoser(cfg),
    scorer: caseScorer(cfg),
    solver: methodSolver(p),
    statement: statementReader,
    localizer: auditLocalizer,
    restorer: serviceRestorer(cfg),
  };
}

export function caseSetup(p: CaseParts): CaseSetup {
  const { cfg } = p;
  return {
    scope: caseScope(
      { client: p.client, time: p.time, env: p.env, namespace: cfg.namespace, signal: p.signal },
      cfg,
    ),
    roles: { ...defaultRoles(p), ...p.roles },
    labels: { method: p.method.name, model: p.model.id, maxAttempts: p.maxAttempts, report: cfg.report },
    caseDir: p.caseDir,
    onPhase: p.onPhase,
  };
}
