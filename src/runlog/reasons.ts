// Why a case ended as it did, derived from what the case recorded (the executor's results, the
// verifiers' verdicts, the harness's errors), never from the model's own words: a stable code of
// outcome.ts's table and a one-line detail. Records are read back from files written by older
// versions too, so each fact is the part of its type that every version wrote.
import type { ExecutionResult, TaskResult } from "../ansible/executor.js";
import type { AgentRun, Attempt } from "../methods/types.js";
import { type CaseStatus, isReasonCode, type Reason, type ReasonCode } from "../outcome.js";
import type { Verdict } from "../verify/types.js";

/** One task as the executor records it (ansible's JSON); every field but status may be absent. */
export type TaskFact = Partial<Pick<TaskResult, "name" | "module" | "message" | "durationMs">> & {
  status: string;
};

/** What a playbook's execution recorded. */
export type ExecutionFact = Pick<ExecutionResult, "accepted" | "ok" | "timedOut" | "problems"> &
  Partial<Pick<ExecutionResult, "exitCode" | "output">> & { tasks?: TaskFact[] };

export type VerdictFact = Pick<Verdict, "pass" | "reason"> & Partial<Pick<Verdict, "measurements">>;

/** One attempt as recorded (methods/types.ts's Attempt). */
export interface AttemptFacts extends Pick<Attempt, "index" | "playbook" | "problems"> {
  execution?: ExecutionFact;
  /** The method's own verification (ThinkRemed): the combined verdict. */
  verdict?: VerdictFact;
  /** The same verification split in two, when the recorder keeps both. */
  verdicts?: { reference?: VerdictFact; user?: VerdictFact; health?: VerdictFact; held?: Held };
  /** An external agent's run (cmd: methods), when one acted instead of (or before) a playbook. */
  agent?: Pick<AgentRun, "exitCode" | "timedOut">;
}

/** What reasons are derived from: everything a case records, nothing the model said about itself. */
/** A hold window (--hold) and when a reading in it failed. */
export interface Held {
  ms: number;
  failedAtMs?: number;
}

export interface ReasonInput {
  status: CaseStatus;
  attempts: AttemptFacts[];
  verdicts: {
    reference?: VerdictFact;
    user?: VerdictFact;
    health?: VerdictFact;
    injection?: { reason: string };
  };
  /** The hold window of the final score (--hold), and when a reading in it failed. */
  held?: Held;
  /** T_max for a method that retries (ThinkRemed); 1 or absent for one attempt. */
  maxAttempts?: number;
  /** The method's error (a provider failure) or the harness's, as recorded. */
  error?: string;
  /** The error's cause when the recorder classified it (a code of outcome.ts's table). */
  errorCause?: string;
}

const MAX_DETAIL = 300;
const line = (s: string) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > MAX_DETAIL ? `${one.slice(0, MAX_DETAIL - 1)}…` : one;
};
const reason = (code: ReasonCode, detail: string): Reason => ({ code, detail: line(detail) });

/**
 * The cause of an error message, from the error codes and words our errors and the SDKs use: only
 * for a record without `errorCause` (written before causes were recorded, or an error met outside
 * a role), since every error the case meets now carries its code (errors.ts, reasonOf).
 */
export function errorCause(message: string): ReasonCode {
  const m = message;
  if (/E_INTERRUPTED|interrupted/i.test(m)) return "interrupted";
  if (/E_MISSING_TOOL|not found on PATH/i.test(m)) return "tool-missing";
  if (/E_CLUSTER_UNREACHABLE/.test(m)) return "unreachable";
  if (/E_CLUSTER\b/.test(m)) return "cluster";
  if (/E_MISSING_API_KEY/.test(m)) return "auth";
  if (/\b429\b|rate.?limit|too many requests/i.test(m)) return "rate-limit";
  if (/timed? ?out|timeout|deadline exceeded/i.test(m)) return "timeout";
  if (/empty (reply|answer|response|message)|no content|answered nothing/i.test(m)) return "empty-reply";
  if (/\b5\d\d\b|overloaded|unavailable|cannot reach|ECONN|ENOTFOUND|EAI_AGAIN|connection/i.test(m))
    return "outage";
  if (/E_MODEL/.test(m)) return "rejected";
  return "harness";
}

/** The harness's own refusals (check.ts), as opposed to a playbook it could not read. */
const HARNESS_REFUSAL =
  /only "[^"]+" may be changed|all namespaces|deletes a namespace|protected namespace|refused/i;
const FORBIDDEN = /forbidden|\b403\b/i;

/** The first task that failed, from the executor's task results, else from ansible's text output. */
function firstFailedTask(e: ExecutionFact): TaskFact | undefined {
  if (e.tasks) return e.tasks.find((t) => t.status === "failed" || t.status === "unreachable");
  // records written before task results existed: ansible's default callback, "TASK [name]" then
  // "fatal: [host]: FAILED! => {...}"
  const out = e.output ?? "";
  const fatal = /^fatal: \[[^\]]*\]: (FAILED|UNREACHABLE)! => (.*)$/m.exec(out);
  if (!fatal) return undefined;
  const before = out.slice(0, fatal.index);
  const names = [...before.matchAll(/^TASK \[(.*)\] \*+$/gm)];
  let message = fatal[2];
  try {
    const body = JSON.parse(fatal[2]) as { msg?: unknown; stderr?: unknown };
    const stderr = typeof body.stderr === "string" ? body.stderr : "";
    message = stderr || (typeof body.msg === "string" ? body.msg : fatal[2]);
  } catch {
    // ansible printed something other than one JSON object: keep its text
  }
  return {
    name: names.length ? names[names.length - 1][1] : undefined,
    status: fatal[1] === "FAILED" ? "failed" : "unreachable",
    message,
  };
}

/**
 * ansible's own words from a failed --syntax-check: the ERROR! paragraph without the JSON attempt
 * and the file path, and where it points (line, column).
 */
function syntaxError(e: ExecutionFact): string {
  const out = e.output ?? "";
  const at = out.indexOf("ERROR! ");
  if (at < 0) return e.problems[0] || "ansible-playbook could not parse the playbook";
  const body = out.slice(at + "ERROR! ".length).split(/\n\s*The offending line/)[0];
  const lines = body
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^JSON: |^The error appears to be in|^be elsewhere in the file/.test(l));
  const where = /: line (\d+), column (\d+)/.exec(body);
  return `${lines.join(" ")}${where ? ` (line ${where[1]}, column ${where[2]})` : ""}`;
}

/** The reason of an execution that did not go through cleanly; undefined when it ran without error. */
function executionReason(e: ExecutionFact, problems: string[]): Reason | undefined {
  if (e.exitCode === 127 && /not found on PATH/.test(e.output ?? ""))
    return reason("tool-missing", e.output ?? "ansible-playbook was not found on PATH");
  if (e.timedOut) return reason("timeout", e.problems[0] ?? "ansible-playbook timed out and was killed");
  if (!e.accepted) {
    const all = e.problems.length ? e.problems : problems;
    const refusal = all.find((p) => HARNESS_REFUSAL.test(p));
    if (refusal) return reason("refused", `the harness refused the playbook: "${refusal}"`);
    if (all.some((p) => /--syntax-check|could not parse the playbook/.test(p)))
      return reason("invalid-playbook", syntaxError(e));
    return reason("invalid-playbook", all[0] ?? "the playbook was not accepted");
  }
  if (e.ok) return undefined;
  const task = firstFailedTask(e);
  if (task) {
    const msg = line(task.message ?? "");
    if (FORBIDDEN.test(msg))
      return reason("refused", `the cluster refused task "${task.name ?? "?"}": "${msg}"`);
    const what = [task.name ? `"${task.name}"` : undefined, task.module ? `(${task.module})` : undefined]
      .filter(Boolean)
      .join(" ");
    return reason("task-failed", `task ${what || "?"} ${task.status}: ${msg || "no message"}`);
  }
  return reason("task-failed", `ansible-playbook exited with code ${e.exitCode ?? "?"}`);
}

/** A short measurement out of a verdict's measurements, when it has a shape we know. */
export function measurementText(v: VerdictFact): string {
  const m = v.measurements ?? {};
  const parts: string[] = [];
  for (const r of ["cpu", "memory"] as const) {
    const rows = m[r];
    if (Array.isArray(rows))
      for (const row of rows as Record<string, unknown>[])
        if (typeof row.ratio === "number" && row.ratio >= 0.5)
          parts.push(`${r} ${row.usage} of ${row.limit} limit (${row.pod})`);
  }
  if (Array.isArray(m.dd))
    for (const row of m.dd as Record<string, unknown>[])
      if (typeof row.mbps === "number" && row.mbps < 10) parts.push(`dd ${row.mbps} MB/s (${row.pod})`);
  if (Array.isArray(m.ping))
    for (const row of m.ping as Record<string, unknown>[])
      if (typeof row.lossPercent === "number" && (row.lossPercent > 0 || Number(row.avgMs ?? 0) > 1000))
        parts.push(`ping ${row.lossPercent}% loss, ${row.avgMs ?? "?"} ms (${row.pod})`);
  for (const k of ["cpu", "memory"] as const) {
    const sub = m[k];
    if (sub && typeof sub === "object" && !Array.isArray(sub))
      parts.push(measurementText({ pass: false, reason: "", measurements: sub as Record<string, unknown> }));
  }
  return parts.filter(Boolean).join("; ");
}

const ineffective = (v: VerdictFact) => {
  const m = measurementText(v);
  return reason("ineffective", m ? `${m}: ${v.reason}` : v.reason);
};

// The namespace-health check's own sentences (envs/health.ts collateralDamage): a combined verdict
// whose every part is one of them failed on health alone.
const HEALTH_PROBLEM = /^(Deployment|StatefulSet) \S+ (is gone|was scaled from|has \d+\/\d+ ready)/;

/** The reason of a verification that failed (undefined when it passed). */
function verdictReason(
  ref: VerdictFact | undefined,
  health: VerdictFact | undefined,
  combined?: VerdictFact,
  user?: VerdictFact,
  held?: Held,
): Reason | undefined {
  const failed = [ref, user, health].find((v) => v && !v.pass);
  // the checks passed first: which failed within the hold, and when, is the combined reason
  if (failed && held?.failedAtMs !== undefined)
    return reason(
      "not-held",
      `the checks passed, then failed ${Math.round(held.failedAtMs / 1000)} s into the ${Math.round(held.ms / 1000)} s hold: ${failed.reason}`,
    );
  if (ref && !ref.pass) return ineffective(ref);
  if (user && !user.pass) return ineffective(user);
  if (ref?.pass && health && !health.pass) return reason("collateral", health.reason);
  if (!ref && combined && !combined.pass) {
    const parts = combined.reason.split("; ");
    return parts.every((p) => HEALTH_PROBLEM.test(p))
      ? reason("collateral", combined.reason)
      : ineffective(combined);
  }
  return undefined;
}

/** One attempt's reason: what stopped it, judged by the verification that followed it. */
export function attemptReason(
  a: AttemptFacts,
  final?: { reference?: VerdictFact; user?: VerdictFact; health?: VerdictFact; held?: Held },
): Reason | undefined {
  if (!a.execution) {
    const p = a.problems.join("; ");
    if (/timed? ?out/i.test(p)) return reason("timeout", p);
    // an external agent that ran to the end acted by itself: the verification judges it
    if (a.agent && a.agent.exitCode === 0 && !a.agent.timedOut) {
      const v = a.verdicts ?? (a.verdict ? undefined : final);
      return verdictReason(v?.reference, v?.health, a.verdict, v?.user, v?.held);
    }
    if (a.agent) return reason("task-failed", p || `the agent exited with code ${a.agent.exitCode}`);
    return reason("no-playbook", p || "the answer held no playbook");
  }
  const exec = executionReason(a.execution, a.problems);
  if (exec) return exec;
  const v = a.verdicts ?? (a.verdict ? undefined : final);
  return verdictReason(v?.reference, v?.health, a.verdict, v?.user, v?.held);
}

/** The case's reason (undefined for a success) and one per attempt. */
export function deriveReasons(x: ReasonInput): { reason?: Reason; attempts: (Reason | undefined)[] } {
  const last = x.attempts.length - 1;
  // the last attempt is judged by the runner's final verdicts when the method did not verify it
  const attempts = x.attempts.map((a, i) =>
    attemptReason(a, i === last ? { ...x.verdicts, held: x.held } : undefined),
  );
  return { reason: caseReason(x, attempts), attempts };
}

function caseReason(x: ReasonInput, attempts: (Reason | undefined)[]): Reason | undefined {
  if (x.status === "success") return undefined;
  const cause = (msg: string) => reason(isReasonCode(x.errorCause) ? x.errorCause : errorCause(msg), msg);
  if (x.status === "interrupted") return reason("interrupted", x.error ?? "the run was interrupted");
  if (x.status === "injection-failure")
    return reason("not-injected", x.verdicts.injection?.reason ?? "the fault did not show");
  if (x.status === "error") return cause(x.error ?? "the harness failed without a message");
  const lastAttempt = x.attempts[x.attempts.length - 1];
  // a provider failure that ended the method before a playbook ran is the reason itself
  if (x.error && !lastAttempt?.execution) return cause(x.error);
  const final = verdictReason(x.verdicts.reference, x.verdicts.health, undefined, x.verdicts.user, x.held);
  const lastReason = attempts[attempts.length - 1] ?? final;
  if (!lastReason) return final ?? reason("harness", "the case failed with no recorded cause");
  if ((x.maxAttempts ?? 1) > 1 && x.attempts.length >= (x.maxAttempts ?? 1))
    return reason(
      "gave-up",
      `after ${x.attempts.length} attempts; last: ${lastReason.code}: ${lastReason.detail}`,
    );
  return lastReason;
}
