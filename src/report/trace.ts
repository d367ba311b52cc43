// The trace of one case, read back from its run folder: the record, the diagnosis report, the
// conversation (messages, tool calls, probe commands and what they returned), each playbook, the
// executor's task results, the verdicts, and the reason. conversation.json is read field by field:
// runs made by older versions lack fields, and a case that ended early has no file at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isErrorOfRun, type Reason } from "../outcome.js";
import { caseDirName } from "../runlog/folder.js";
import {
  type AttemptFacts,
  deriveReasons,
  type ExecutionFact,
  type TaskFact,
  type VerdictFact,
} from "../runlog/reasons.js";
import type { CaseRecord } from "../runlog/records.js";

export interface TraceMessage {
  role: string;
  content: string;
  toolCalls: { id?: string; name: string; arguments: string }[];
  /** For a tool result: the tool it answers and the call it answers. */
  tool?: string;
  toolCallId?: string;
}

export interface TraceAttempt extends AttemptFacts {
  probeRounds?: number;
  execution?: ExecutionFact & { durationMs?: number };
  reason?: Reason;
}

export interface CaseTrace {
  caseDir: string;
  record: CaseRecord;
  reason?: Reason;
  diagnosis?: Record<string, unknown>;
  messages: TraceMessage[];
  attempts: TraceAttempt[];
  /** The playbook files of the case folder (playbook-N.yml), by name. */
  playbooks: { name: string; text: string }[];
}

type Obj = Record<string, unknown>;
const obj = (x: unknown): Obj | undefined =>
  x && typeof x === "object" && !Array.isArray(x) ? (x as Obj) : undefined;
const str = (x: unknown) => (typeof x === "string" ? x : undefined);
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

/** The trial of a case (--trials), when the record has one. */
export const trialOf = (rec: CaseRecord): number | undefined => (rec as { trial?: number }).trial;

/** The case's folder in its run (case-NNN/, case-NNN-tK/). */
export const caseDirOf = (runDir: string, index: number, trial?: number) =>
  join(runDir, caseDirName(index, trial));

function readJson(file: string): Obj | undefined {
  try {
    return obj(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}

function message(x: unknown): TraceMessage | undefined {
  const m = obj(x);
  if (!m) return undefined;
  return {
    role: str(m.role) ?? "?",
    content: str(m.content) ?? "",
    toolCalls: list(m.toolCalls).flatMap((c) => {
      const o = obj(c);
      if (!o) return [];
      const args = typeof o.arguments === "string" ? o.arguments : JSON.stringify(o.arguments ?? {});
      return [{ id: str(o.id), name: str(o.name) ?? "?", arguments: args }];
    }),
    tool: str(m.name),
    toolCallId: str(m.toolCallId),
  };
}

function verdict(x: unknown): VerdictFact | undefined {
  const v = obj(x);
  if (!v || typeof v.pass !== "boolean") return undefined;
  return { pass: v.pass, reason: str(v.reason) ?? "", measurements: obj(v.measurements) ?? {} };
}

function task(x: unknown): TaskFact | undefined {
  const t = obj(x);
  if (!t) return undefined;
  return {
    name: str(t.name),
    module: str(t.module),
    status: str(t.status) ?? "?",
    message: str(t.message),
    durationMs: typeof t.durationMs === "number" ? t.durationMs : undefined,
  };
}

function attempt(x: unknown, i: number): TraceAttempt | undefined {
  const a = obj(x);
  if (!a) return undefined;
  const e = obj(a.execution);
  const split = obj(a.verdicts);
  return {
    index: typeof a.index === "number" ? a.index : i + 1,
    playbook: str(a.playbook),
    problems: list(a.problems).filter((p): p is string => typeof p === "string"),
    probeRounds: typeof a.probeRounds === "number" ? a.probeRounds : undefined,
    verdict: verdict(a.verdict),
    verdicts: split ? { reference: verdict(split.reference), health: verdict(split.health) } : undefined,
    execution: e && {
      accepted: e.accepted === true,
      ok: e.ok === true,
      timedOut: e.timedOut === true,
      exitCode: typeof e.exitCode === "number" ? e.exitCode : undefined,
      output: str(e.output),
      problems: list(e.problems).filter((p): p is string => typeof p === "string"),
      durationMs: typeof e.durationMs === "number" ? e.durationMs : undefined,
      tasks: Array.isArray(e.tasks) ? e.tasks.flatMap((t) => task(t) ?? []) : undefined,
    },
  };
}

/** T_max of a run as recorded in run.json (ThinkRemed's default 2; SoloGen makes one attempt). */
export function maxAttemptsOf(runDir: string, method: string): number {
  const config = obj(readJson(join(runDir, "run.json"))?.config);
  const t = config?.maxAttempts;
  if (typeof t === "number") return t;
  return method === "ThinkRemed" ? 2 : 1;
}

/** The method's or harness's error as recorded in the record's errors. */
function recordedError(rec: CaseRecord): string | undefined {
  const method = rec.errors.find((e) => e.startsWith("method: "));
  if (method) return method.slice("method: ".length);
  return isErrorOfRun(rec.status) ? rec.errors[0] : undefined;
}

export function readTrace(runDir: string, rec: CaseRecord, maxAttempts?: number): CaseTrace {
  const caseDir = caseDirOf(runDir, rec.index, trialOf(rec));
  const conv = readJson(join(caseDir, "conversation.json"));
  const attempts = list(conv?.attempts).flatMap((a, i) => attempt(a, i) ?? []);
  // a record that carries its reasons is believed; an older one gets them derived here
  const derived = deriveReasons({
    status: rec.status,
    attempts,
    verdicts: rec.verdicts,
    maxAttempts: maxAttempts ?? maxAttemptsOf(runDir, rec.method),
    error: recordedError(rec),
  });
  attempts.forEach((a, i) => {
    const given = rec.attemptReasons?.[i];
    a.reason = given ?? derived.attempts[i];
  });
  const playbooks = existsSync(caseDir)
    ? readdirSync(caseDir)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
        .map((name) => ({ name, text: readFileSync(join(caseDir, name), "utf8") }))
    : [];
  return {
    caseDir,
    record: rec,
    reason: rec.reason ?? derived.reason,
    diagnosis: obj(conv?.report),
    messages: list(conv?.conversation).flatMap((m) => message(m) ?? []),
    attempts,
    playbooks,
  };
}

/** A record with its reason filled in from the case folder when it was recorded without one. */
export function withReason(runDir: string, rec: CaseRecord, maxAttempts?: number): CaseRecord {
  if (rec.status === "success" || rec.reason) return rec;
  const t = readTrace(runDir, rec, maxAttempts);
  return t.reason ? { ...rec, reason: t.reason } : rec;
}
