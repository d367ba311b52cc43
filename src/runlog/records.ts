// What a run leaves behind, in <save-path>/<run>/: run.json (its configuration), cases.jsonl
// (one line per finished case, append-only), case-NNN/ (playbooks, outputs, conversation),
// summary.json and summary.txt.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Usage } from "../models/types.js";
import type { CaseStatus, Reason } from "../outcome.js";
import type { InjectionVerdict, Verdict } from "../verify/types.js";

/** The key a record is known by in a run: its case, and its trial when there are several. */
export const trialKey = (index: number, trial?: number) => `${index}#${trial ?? 1}`;

/** A case's folder in its run: case-NNN/, or case-NNN-tK/ for trial K of a run with --trials. */
export const caseDirName = (index: number, trial?: number) =>
  `case-${String(index).padStart(3, "0")}${trial ? `-t${trial}` : ""}`;

/** Milliseconds per part of the remediation, as a real cluster would show them (runner/timing.ts). */
export interface MethodTimes {
  modelMs: number;
  probeMs: number;
  executeMs: number;
  /** Of executeMs: ansible's own CPU time. */
  executeCpuMs: number;
  scoreMs: number;
}

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
}

export interface CaseRecord {
  index: number;
  /** Which of the --trials runs of the case (1-based); absent with one trial. */
  trial?: number;
  failure: string;
  target: string;
  faults: { failure: string; service: string }[];
  status: CaseStatus;
  success: boolean;
  injected: boolean;
  verdicts: { reference?: Verdict; health?: Verdict; injection?: InjectionVerdict };
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
}

/** An injection verdict as versions before faultShown wrote it: `pass` meant "the fault showed". */
interface InjectionVerdictV1 extends Omit<InjectionVerdict, "faultShown"> {
  pass: boolean;
}

/** A line of cases.jsonl as any version wrote it. */
export type RecordedCase = Omit<CaseRecord, "verdicts"> & {
  verdicts: Omit<CaseRecord["verdicts"], "injection"> & { injection?: InjectionVerdict | InjectionVerdictV1 };
};

/** A record in today's shape, from a line that any version wrote (resume, report, show and diff read through this). */
export function upgradeRecord(rec: RecordedCase): CaseRecord {
  const injection = rec.verdicts?.injection;
  if (!injection || "faultShown" in injection) return rec as CaseRecord;
  const { pass, ...reading } = injection;
  return { ...rec, verdicts: { ...rec.verdicts, injection: { ...reading, faultShown: pass } } };
}

export class RunRecords {
  readonly casesFile: string;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.casesFile = join(dir, "cases.jsonl");
  }

  caseDir(index: number, trial?: number): string {
    const d = join(this.dir, caseDirName(index, trial));
    mkdirSync(d, { recursive: true });
    return d;
  }

  append(rec: CaseRecord): void {
    appendFileSync(this.casesFile, `${JSON.stringify(rec)}\n`);
  }

  /** Finished cases so far (a torn last line from a crash is ignored). */
  read(): CaseRecord[] {
    if (!existsSync(this.casesFile)) return [];
    const out: CaseRecord[] = [];
    for (const line of readFileSync(this.casesFile, "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        out.push(upgradeRecord(JSON.parse(line)));
      } catch {
        // an interrupted write: that case runs again
      }
    }
    return out;
  }

  writeJson(name: string, data: unknown): void {
    writeFileSync(join(this.dir, name), `${JSON.stringify(data, null, 2)}\n`);
  }

  writeText(name: string, text: string): void {
    writeFileSync(join(this.dir, name), text);
  }
}
