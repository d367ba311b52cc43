// What a case runs with: the scope every cluster-side role acts in (the cluster and its clock,
// the system and its namespace, how long checks look, Ctrl-C), the harness's roles, each built
// with the few settings it reads (roles.ts), and what the record says the case ran with. runCase
// (case.ts) hands each role the scope and what the case has learned so far, nothing more.

import type { ReportLevel } from "../diagnosis/levels.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import type { HealthSnapshot } from "../envs/health.js";
import type { FailureType, Tier } from "../faults/catalog.js";
import { renderScenario, type Scenario } from "../faults/incident.js";
import type { Injection } from "../faults/inject.js";
import type { AgentIdentity } from "../identity/agent.js";
import type { ChatMessage } from "../llm/types.js";
import type { Localization } from "../localization/score.js";
import type { StatedDiagnosis } from "../methods/diagnosis.js";
import type { MethodResult } from "../methods/types.js";
import type { NoiseEvent } from "../noise/plan.js";
import type { MethodTimes } from "../runlog/records.js";
import type { ScoreContext } from "../verify/scorer.js";
import { DEFAULT_TIMEOUTS, type InjectionVerdict, type Scorer } from "../verify/types.js";
import type { UserReading } from "../verify/user.js";

/** A fault of the case, with its failure's definition. */
export interface Fault {
  failure: FailureType;
  target: string;
  params?: Record<string, unknown>;
  /** The template's placeholder values for this target (expert types). */
  vars?: Record<string, unknown>;
}

/**
 * A case's tier: incident when a fault of it is a scenario, else expert when a fault of it is
 * (both are judged by their users' requests, and their fixes must hold), else reference.
 */
export const tierOf = (faults: Fault[]): Tier =>
  faults.some((f) => f.failure.tier === "incident")
    ? "incident"
    : faults.some((f) => f.failure.tier === "expert")
      ? "expert"
      : "reference";

/** An incident fault's scenario, its placeholders filled with the system's values (the alert is the target). */
export const scenarioOf = (f: Fault): Scenario | undefined =>
  f.failure.incident &&
  renderScenario(f.failure.incident, { ...f.vars, target_pod: f.target, alert: f.target });

/**
 * The services a case's faults act on, which the user-facing check requests from none of: each
 * fault's target, and an incident's causes' workloads (its target is the alerting service).
 */
export const faultServices = (faults: Fault[]): string[] => [
  ...new Set(
    faults.flatMap((f) => [
      f.target,
      ...(scenarioOf(f)?.causes ?? []).filter((c) => c.kind === "Deployment").map((c) => c.name),
    ]),
  ),
];

/** The namespace as it was before the fault: what the checks compare with. */
export interface Baseline {
  /** Every workload's health (no collateral damage is judged against it). */
  health: HealthSnapshot;
  /** What users saw (the expert tier's user-facing check), when the case is judged by it. */
  user?: UserReading;
}

/**
 * Where a case acts: the checks' scope and the settle time (ScoreContext), the case's namespace
 * (a worker's copy of the system: <ns>, <ns>-2, ...), Ctrl-C, and how often waits poll.
 */
export interface CaseScope extends ScoreContext {
  /** The method acts and is scored as it was told: Ctrl-C aborts it; cleanup does not listen. */
  signal: AbortSignal;
  /** Seconds between two readings while waiting for workloads (--wait-interval). */
  waitInterval: number;
}

/** The namespace as it should be before a case (no chaos left, every workload Ready): what health compares with. */
export interface Preparer {
  prepare(scope: CaseScope, faults: Fault[]): Promise<Baseline>;
}

export interface Injector {
  inject(scope: CaseScope, faults: Fault[]): Promise<Injection[]>;
}

export interface Confirmer {
  /** Whether every fault shows (its check finds the system unhealthy) within the window. */
  confirm(
    scope: CaseScope,
    faults: Fault[],
    injections: Injection[],
    baseline: Baseline,
  ): Promise<InjectionVerdict>;
}

/** The case's background noise, planned: made once the fault shows, undone with the restore. */
export interface CaseNoise {
  /** The events made, those whose workloads came back Ready in time. */
  make(): Promise<NoiseEvent[]>;
  /** Every edit of the plan undone (made or not: undoing is idempotent); never throws. */
  undo(): Promise<void>;
}

/** Background noise (--noise): the plan of one case and trial (key), the same for the same seed. */
export interface NoisePlanner {
  /** None when the case gets no noise (without --noise, outside the incident tier). */
  plan(scope: CaseScope, faults: Fault[], key: string): CaseNoise | undefined;
}

/** The agent's identity for the case: what its probes, playbooks and agents act as. */
export interface IdentityIssuer {
  issue(scope: CaseScope): Promise<AgentIdentity>;
}

/** What the case saw of its faults before the report: the baseline, and when the fault showed (cluster ms). */
export interface Seen {
  baseline: Baseline;
  sinceMs: number;
}

/** The diagnosis report the method is handed, at the run's level (--report). */
export interface Diagnoser {
  diagnose(scope: CaseScope, faults: Fault[], seen: Seen): Promise<DiagnosisReport>;
}

/** What the case is scored on, once it is known what was injected. */
export interface ScorerMaker {
  scorer(scope: CaseScope, known: { faults: Fault[]; baseline: Baseline; injections: Injection[] }): Scorer;
}

/** The method's step: it acts as the case's identity on the report, each part it uses timed into times. */
export interface Solver {
  solve(
    scope: CaseScope,
    report: DiagnosisReport,
    scorer: Scorer,
    identity: AgentIdentity,
    times: MethodTimes,
  ): Promise<MethodResult>;
}

/** The diagnosis the agent stated, if it did, scored by whether it named a fault's service. */
export interface StatementReader {
  read(conversation: ChatMessage[], faults: Fault[]): StatedDiagnosis | undefined;
}

/** What the agent changed (the API proxy's log of its requests in the case folder) against the faults' objects. */
export interface Localizer {
  localize(caseDir: string, injections: Injection[]): Localization;
}

export interface Restorer {
  /** Stop the chaos and restore the targets from their original manifests; never listens to Ctrl-C. */
  restore(scope: CaseScope, faults: Fault[], injections: Injection[]): Promise<void>;
}

/** The harness's roles around the method, in the order a case meets them. */
export interface CaseRoles {
  preparer: Preparer;
  injector: Injector;
  confirmer: Confirmer;
  /** None without --noise. */
  noise?: NoisePlanner;
  identity: IdentityIssuer;
  diagnoser: Diagnoser;
  scorer: ScorerMaker;
  solver: Solver;
  statement: StatementReader;
  localizer: Localizer;
  restorer: Restorer;
}

/** What the record says a case ran with, beside what it learned. */
export interface CaseLabels {
  method: string;
  model: string;
  /** T_max in force (the method's, or --max-attempts). */
  maxAttempts: number;
  report: ReportLevel;
}

/** One case as runCase takes it: where it acts, its roles, its folder, and how it tells its progress. */
export interface CaseSetup {
  scope: CaseScope;
  roles: CaseRoles;
  labels: CaseLabels;
  caseDir: string;
  onPhase: (phase: string) => void;
  /**
   * Where the run re-bases per case (src/runner/lead.ts): the lead to show the case with from its
   * start, and the method with from when its fault shows.
   */
  caseLead?: number;
  methodLead?: number;
}

/** The scope of a case in a namespace of env: the checks' scope and the settle time in cluster ms. */
export function caseScope(
  parts: Pick<CaseScope, "client" | "time" | "env" | "namespace" | "signal">,
  s: { injectionTimeout: number; settle: number; waitInterval: number },
  readyTimeoutSeconds = parts.env.readyTimeoutSeconds,
): CaseScope {
  return {
    ...parts,
    windowMs: s.injectionTimeout * 1000,
    timeouts: { ...DEFAULT_TIMEOUTS, readyMs: readyTimeoutSeconds * 1000 },
    settleMs: s.settle * 1000,
    waitInterval: s.waitInterval,
  };
}
