// The one context a case runs in: the cluster and its clock, the system and its namespace, the
// run's settings, the method with the model and the executor it is handed, and the roles of the
// harness. Every role reads the part it needs of this one object (a check's scope, the scorer's
// settle time, the restorer's manifests); runCase (case.ts) hands it to each in turn.
import type { Executor } from "../ansible/executor.js";
import type { FailureSpec } from "../chaos/catalog.js";
import type { Injection } from "../chaos/inject.js";
import type { KubeClient } from "../cluster/client.js";
import type { Clock } from "../cluster/time.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import type { EnvSpec } from "../envs/env.js";
import type { HealthSnapshot } from "../envs/health.js";
import type { AgentIdentity } from "../identity/agent.js";
import type { Method } from "../methods/types.js";
import type { Model } from "../models/types.js";
import type { ScoreContext } from "../verify/scorer.js";
import { DEFAULT_TIMEOUTS, type InjectionVerdict, type Scorer } from "../verify/types.js";
import type { UserReading } from "../verify/user.js";
import type { RunConfig } from "./config.js";

/** A fault of the case, with its failure's definition. */
export interface Fault {
  spec: FailureSpec;
  service: string;
  params?: Record<string, unknown>;
  /** The template's placeholder values for this target (expert types). */
  vars?: Record<string, unknown>;
}

/** The namespace as it was before the fault: what the checks compare with. */
export interface Baseline {
  /** Every workload's health (no collateral damage is judged against it). */
  health: HealthSnapshot;
  /** What users saw (the expert tier's user-facing check), when the case is judged by it. */
  user?: UserReading;
}

export interface CaseContext extends ScoreContext {
  client: KubeClient;
  time: Clock;
  env: EnvSpec;
  /** The case's namespace (a worker's copy of the system: <ns>, <ns>-2, ...). */
  namespace: string;
  /** The run's settings, with this case's namespace. */
  cfg: RunConfig;
  /** The method acts and is scored as it was told: Ctrl-C aborts it; cleanup does not listen. */
  signal: AbortSignal;
  caseDir: string;
  onPhase: (phase: string) => void;
  /** solve: the method, and the model and executor it is handed. */
  method: Method;
  model: Model;
  executor: Executor;
  /** T_max in force (the method's, or --max-attempts). */
  maxAttempts: number;
  /** The harness's roles: the defaults (roles.ts) where none is given. */
  roles?: Partial<CaseRoles>;
}

/** The namespace as it should be before a case (no chaos left, every workload Ready): what health compares with. */
export interface Preparer {
  prepare(ctx: CaseContext, faults: Fault[]): Promise<Baseline>;
}

export interface Injector {
  inject(ctx: CaseContext, faults: Fault[]): Promise<Injection[]>;
}

export interface Confirmer {
  /** Whether every fault shows (its check finds the system unhealthy) within the window. */
  confirm(
    ctx: CaseContext,
    faults: Fault[],
    injections: Injection[],
    baseline: Baseline,
  ): Promise<InjectionVerdict>;
}

/** The agent's identity for the case: what its probes, playbooks and agents act as. */
export interface IdentityIssuer {
  issue(ctx: CaseContext): Promise<AgentIdentity>;
}

/** What the case saw of its faults before the report: the baseline, and when the fault showed (cluster ms). */
export interface Seen {
  baseline: Baseline;
  sinceMs: number;
}

/** The diagnosis report the method is handed, at the run's level (--report). */
export interface Diagnoser {
  diagnose(ctx: CaseContext, faults: Fault[], seen: Seen): Promise<DiagnosisReport>;
}

/** What the case is scored on, once it is known what was injected. */
export interface ScorerMaker {
  scorer(ctx: CaseContext, c: { faults: Fault[]; baseline: Baseline; injections: Injection[] }): Scorer;
}

export interface Restorer {
  /** Stop the chaos and restore the targets from their original manifests; never listens to Ctrl-C. */
  restore(ctx: CaseContext, faults: Fault[], injections: Injection[]): Promise<void>;
}

/** The harness's roles around the method, in the order a case meets them. */
export interface CaseRoles {
  prepare: Preparer;
  injector: Injector;
  confirmer: Confirmer;
  identity: IdentityIssuer;
  diagnoser: Diagnoser;
  scorer: ScorerMaker;
  restorer: Restorer;
}

/** A case's context from the run's parts: the checks' scope and settle time in cluster ms. */
export function caseContext(
  o: Omit<CaseContext, keyof ScoreContext | "signal"> & {
    client: KubeClient;
    time: Clock;
    env: EnvSpec;
    signal: AbortSignal;
  },
): CaseContext {
  return {
    ...o,
    namespace: o.cfg.namespace,
    windowMs: o.cfg.injectionTimeout * 1000,
    timeouts: { ...DEFAULT_TIMEOUTS, readyMs: o.env.readyTimeoutSeconds * 1000 },
    settleMs: o.cfg.settle * 1000,
  };
}
