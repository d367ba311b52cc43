// A case's record, one line of cases.jsonl: its type, built in one place from what the case's
// pipeline learned (caseRecord), and read back in today's shape from any version's line
// (upgradeRecord).

import type { ReportLevel } from "../diagnosis/levels.js";
import type { Tier } from "../faults/catalog.js";
import { addUsage, emptyUsage, type Usage } from "../llm/types.js";
import type { Localization } from "../localization/score.js";
import type { StatedDiagnosis } from "../methods/diagnosis.js";
import type { MethodResult } from "../methods/types.js";
import type { NoiseEvent } from "../noise/plan.js";
import type { CaseStatus, ErrorReason, Reason } from "../outcome.js";
import type { InjectionVerdict, Score, Verdict } from "../verify/types.js";
import { deriveReasons } from "./reasons.js";

/** The key a record is known by in a run: its case, and its trial when there are several. */
export const trialKey = (index: number, trial?: number) => `${index}#${trial ?? 1}`;

/** Milliseconds per part of the remediation, as a real cluster would show them (runner/timing.ts). */
export interface MethodTimes {
  modelMs: number;
  probeMs: number;
  executeMs: number;
  /** Of executeMs: ansible's own CPU time. */
  executeCpuMs: number;
  scoreMs: number;
}

/** What a real cluster shows as the remediation's time: the model's, the probes' and the execution's. */
export const remediationMs = (t: MethodTimes) => t.modelMs + t.probeMs + t.executeMs;

export interface Phases {
  inject?: number;
  confirm?: number;
  method?: number;
  execute?: number;
  settle?: number;
  verify?: number;
  restore?: number;
  /** Creating and removing the agent's identity (ServiceAccount, Role, token). */
  identity?: number;
  /** Making the background noise (--noise) and waiting for the namespace to be Ready again. */
  noise?: number;
}

export interface CaseRecord {
  index: number;
  /** Which of the --trials runs of the case (1-based); absent with one trial. */
  trial?: number;
  failure: string;
  target: string;
  faults: { failure: string; target: string }[];
  status: CaseStatus;
  success: boolean;
  injected: boolean;
  /** The faults' own checks, what users see (the expert tier), namespace health; the injection's. */
  verdicts: { reference?: Verdict; user?: Verdict; health?: Verdict; injection?: InjectionVerdict };
  /** The hold window the checks were read over (--hold), and when a reading in it failed. */
  held?: { ms: number; failedAtMs?: number };
  attempts: number;
  probeRounds: number;
  /** Wall ms per phase. */
  phases: Phases;
  /**
   * Seconds the remediation took as a real cluster would show them (runner/timing.ts): the
   * model's and the probes' wall time, the playbooks' own CPU time and the cluster time they
   * waited on. The same at any clock speed. Set for evaluated cases.
   */
  remediationSeconds?: number;
  /** Its parts in ms, and beside them the harness's own settle and checks (scoreMs: the Verification agent's; finalMs: the runner's). */
  remediation?: MethodTimes & { finalMs: number };
  /** T_max in force for the case (the method's definition, or --max-attempts). */
  maxAttempts?: number;
  tokens: Usage;
  usageByRole: Record<string, Usage>;
  errors: string[];
  /** Why the case did not succeed (runlog/reasons.ts): a stable code and a one-line detail. */
  reason?: Reason;
  /** ThinkRemed: the reason of each attempt, in order (null for an attempt that passed). */
  attemptReasons?: (Reason | null)[];
  method: string;
  model: string;
  startedAt: string;
  finishedAt: string;
  /** The report level the method was handed (--report); absent in records before levels: full. */
  report?: ReportLevel;
  /** The faults' tier: expert when one of them is (chaos/catalog.yaml), else reference. */
  tier?: Tier;
  /** What the agent changed against what the faults changed or targeted (src/localization). */
  localization?: Localization;
  /** The diagnosis the agent stated (submit_diagnosis, or MCP submit), scored by the service it named. */
  diagnosis?: StatedDiagnosis;
  /** The background events made before the report (--noise), none of them the fault. */
  noise?: NoiseEvent[];
}

/** An injection verdict as versions before faultShown wrote it: `pass` meant "the fault showed". */
interface InjectionVerdictV1 extends Omit<InjectionVerdict, "faultShown"> {
  pass: boolean;
}

/** A line of cases.jsonl as any version wrote it. */
export type RecordedCase = Omit<CaseRecord, "verdicts" | "faults"> & {
  verdicts: Omit<CaseRecord["verdicts"], "injection"> & { injection?: InjectionVerdict | InjectionVerdictV1 };
  /** Versions before `target` named each fault's service `service`. */
  faults: ({ failure: string; target: string } | { failure: string; service: string })[];
};

/** A record in today's shape, from a line that any version wrote (resume, report, show and diff read through this). */
export function upgradeRecord(rec: RecordedCase): CaseRecord {
  const faults = (rec.faults ?? []).map((f) =>
    "target" in f ? f : { failure: f.failure, target: f.service },
  );
  const injection = rec.verdicts?.injection;
  if (!injection || "faultShown" in injection) return { ...rec, faults } as CaseRecord;
  const { pass, ...reading } = injection;
  return { ...rec, faults, verdicts: { ...rec.verdicts, injection: { ...reading, faultShown: pass } } };
}

/** What a case came to, as its pipeline learned it (runner/case.ts): the record is made of these alone. */
export interface CaseFacts {
  index: number;
  /** Which of the --trials runs (absent with one trial). */
  trial?: number;
  faults: { failure: string; target: string }[];
  method: string;
  model: string;
  /** T_max in force. */
  maxAttempts: number;
  startedAt: string;
  /** Wall ms per phase of the harness. */
  phases: Phases;
  /** What went wrong, in order: the method's failure, the harness's error, the cleanup's. */
  errors: string[];
  /** The report level (--report). */
  report?: ReportLevel;
  tier?: Tier;
  /** Scored once the method ran. */
  localization?: Localization;
  diagnosis?: StatedDiagnosis;
  noise?: NoiseEvent[];
  status: CaseStatus;
  /** The cause of an error of the run, where the pipeline knows it. */
  errorCause?: ErrorReason;
  injection?: InjectionVerdict;
  /** What the method did, once it ran. */
  solved?: MethodResult;
  /** The runner's final score, once the case was scored. */
  score?: Score;
  /** The remediation's parts and the runner's own settle and checks (finalMs), once scored. */
  remediation?: MethodTimes & { finalMs: number };
}

/** The one place a record is made: counts, tokens and times summed, and the reasons derived. */
export function caseRecord(f: CaseFacts, finishedAt = new Date().toISOString()): CaseRecord {
  const attempts = f.solved?.attempts ?? [];
  const usage = f.solved?.usage ?? {};
  const errors = [...attempts.flatMap((a) => a.problems.map((p) => `attempt ${a.index}: ${p}`)), ...f.errors];
  const verdicts: CaseRecord["verdicts"] = {
    ...(f.injection ? { injection: f.injection } : {}),
    ...(f.score
      ? {
          reference: f.score.reference,
          ...(f.score.user ? { user: f.score.user } : {}),
          health: f.score.health,
        }
      : {}),
  };
  const rec: CaseRecord = {
    index: f.index,
    ...(f.trial ? { trial: f.trial } : {}),
    failure: f.faults.map((x) => x.failure).join("+"),
    target: f.faults.map((x) => x.target).join("+"),
    faults: f.faults,
    status: f.status,
    success: f.status === "success",
    injected: f.injection?.faultShown === true,
    verdicts,
    ...(f.score?.held ? { held: f.score.held } : {}),
    attempts: attempts.length,
    maxAttempts: f.maxAttempts,
    probeRounds: attempts.reduce((n, a) => n + a.probeRounds, 0),
    // the playbooks' own time, as the executor measured it
    phases: f.solved
      ? { ...f.phases, execute: attempts.reduce((n, a) => n + (a.execution?.durationMs ?? 0), 0) }
      : f.phases,
    tokens: Object.values(usage).reduce(addUsage, emptyUsage()),
    usageByRole: usage,
    errors,
    method: f.method,
    model: f.model,
    startedAt: f.startedAt,
    finishedAt,
    ...(f.report ? { report: f.report } : {}),
    ...(f.tier ? { tier: f.tier } : {}),
    ...(f.localization ? { localization: f.localization } : {}),
    ...(f.diagnosis ? { diagnosis: f.diagnosis } : {}),
    ...(f.noise ? { noise: f.noise } : {}),
    ...(f.remediation
      ? {
          remediation: f.remediation,
          remediationSeconds: Math.round(remediationMs(f.remediation) / 100) / 10,
        }
      : {}),
  };
  if (f.status === "success") return rec;
  const r = deriveReasons({
    status: f.status,
    // ThinkRemed's Verification agent scored each attempt: both verdicts are in its score
    attempts: attempts.map((a) => ({
      ...a,
      verdicts: a.verdict && "reference" in a.verdict ? (a.verdict as Score) : undefined,
    })),
    verdicts,
    ...(f.score?.held ? { held: f.score.held } : {}),
    maxAttempts: f.maxAttempts,
    error:
      f.status === "error"
        ? (errors.find((x) => x.startsWith("method:") || x.startsWith("error ")) ?? errors[0])
        : undefined,
    errorCause: f.errorCause,
  });
  return {
    ...rec,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(attempts.length > 1 ? { attemptReasons: r.attempts.map((a) => a ?? null) } : {}),
  };
}
