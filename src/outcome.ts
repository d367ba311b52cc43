// How a case ends, in one vocabulary: its status, and for a case that did not succeed a reason
// code whose class says whose it is (the answer's failure, or an error of the run). The summary,
// the report, resume and the README's table read these two tables; the errors (errors.ts), the
// executor, the agent launcher and the providers name their causes in these codes.

/** Whose a reason is: the answer did not remediate; the fault never showed; the run failed. */
export type ReasonClass = "answer" | "injection" | "run";

/** Every code, with its class and what it means: outcomes of the method first, then errors. */
export const REASON_CODES = {
  "no-playbook": { class: "answer", meaning: "the answer held no playbook" },
  "invalid-playbook": {
    class: "answer",
    meaning: "the playbook is not valid YAML or not a valid Ansible playbook (the parser's message)",
  },
  "task-failed": {
    class: "answer",
    meaning: "a task of the playbook failed (the first failed task's name, module and message)",
  },
  refused: {
    class: "answer",
    meaning: "the cluster (403 Forbidden) or the harness refused an action of the playbook (quoted)",
  },
  // also an error of the run when a provider's call timed out (ErrorReason below)
  timeout: { class: "answer", meaning: "the playbook, the agent or a call ran past its time limit" },
  ineffective: {
    class: "answer",
    meaning: "the playbook ran without error and the fault's check still fails (the measurement)",
  },
  collateral: {
    class: "answer",
    meaning: "the fault's check passed and the namespace-health check failed (what broke)",
  },
  "not-held": {
    class: "answer",
    meaning: "every check passed after the settle, then one failed within the hold window (which, and when)",
  },
  "gave-up": { class: "answer", meaning: "ThinkRemed used its T_max attempts (the last attempt's reason)" },
  "not-injected": {
    class: "injection",
    meaning: "the fault did not show after injection: the case was not evaluated",
  },
  "rate-limit": { class: "run", meaning: "the model provider kept answering 429 / rate limited" },
  outage: {
    class: "run",
    meaning: "the model provider could not be reached or kept failing (5xx, overloaded, connection)",
  },
  "empty-reply": { class: "run", meaning: "the model answered nothing" },
  "malformed-reply": { class: "run", meaning: "the model's reply could not be read" },
  auth: { class: "run", meaning: "the model provider refused the API key" },
  rejected: { class: "run", meaning: "the model provider rejected the request (model name, parameters)" },
  "tool-missing": {
    class: "run",
    meaning: "a program the harness needs (ansible-playbook, kubectl) is not installed",
  },
  sandbox: { class: "run", meaning: "the sandbox the playbook runs in could not be set up" },
  cluster: { class: "run", meaning: "the cluster answered an error the harness could not get past" },
  unreachable: { class: "run", meaning: "the cluster could not be reached" },
  interrupted: { class: "run", meaning: "the run was interrupted (Ctrl-C) during the case" },
  harness: { class: "run", meaning: "a defect or failure of the harness itself" },
} as const satisfies Record<string, { class: ReasonClass; meaning: string }>;

export type ReasonCode = keyof typeof REASON_CODES;

/** The codes of one class. */
export type CodeOf<C extends ReasonClass> = {
  [K in ReasonCode]: (typeof REASON_CODES)[K]["class"] extends C ? K : never;
}[ReasonCode];

/**
 * Why a case ended as an error of the run rather than a failure of the model: the provider, a
 * tool, the cluster, Ctrl-C or the harness failed, or a call timed out. Errors are left out of the
 * success rate and re-run on resume.
 */
export type ErrorReason = CodeOf<"run"> | "timeout";

/** The causes a model provider's failure is named by (the scripted model replays them). */
export const PROVIDER_REASONS = [
  "timeout",
  "rate-limit",
  "outage",
  "empty-reply",
  "malformed-reply",
  "auth",
  "rejected",
] as const satisfies readonly ErrorReason[];

export const isReasonCode = (c: string | undefined): c is ReasonCode => !!c && c in REASON_CODES;

/** A code of the run's class: the case is an error of the run, not the answer's failure. */
export const isRunError = (c: ReasonCode): boolean => REASON_CODES[c].class === "run";

/** Why a case did not succeed: a stable code and a one-line detail. */
export interface Reason {
  code: ReasonCode;
  detail: string;
}

/**
 * How a case ended. Only success and failure are evaluated (they count in the success rate); an
 * error of the run (the provider, the tools, the cluster, Ctrl-C) is listed apart and runs again
 * on resume; an injection failure is neither.
 */
export const CASE_STATUSES = {
  success: { evaluated: true, errorOfRun: false },
  failure: { evaluated: true, errorOfRun: false },
  "injection-failure": { evaluated: false, errorOfRun: false },
  interrupted: { evaluated: false, errorOfRun: true },
  error: { evaluated: false, errorOfRun: true },
} as const satisfies Record<string, { evaluated: boolean; errorOfRun: boolean }>;

export type CaseStatus = keyof typeof CASE_STATUSES;

// records are read from files: a status no table knows counts as neither
const statusOf = (s: string) =>
  (CASE_STATUSES as Partial<Record<string, (typeof CASE_STATUSES)[CaseStatus]>>)[s];

/** Counted in the success rate: the method was measured. */
export const isEvaluated = (s: CaseStatus): boolean => statusOf(s)?.evaluated ?? false;

/** Not the method's outcome but the run's: reported apart, and run again on resume. */
export const isErrorOfRun = (s: CaseStatus): boolean => statusOf(s)?.errorOfRun ?? false;
