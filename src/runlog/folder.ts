// What a run leaves behind, in <save-path>/<run>/: run.json (its configuration), cases.jsonl
// (one record per finished case, append-only; records.ts), case-NNN/ (playbooks, outputs,
// conversation), summary.json and summary.txt.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CaseRecord, upgradeRecord } from "./records.js";

/** A case's folder in its run: case-NNN/, or case-NNN-tK/ for trial K of a run with --trials. */
export const caseDirName = (index: number, trial?: number) =>
  `case-${String(index).padStart(3, "0")}${trial ? `-t${trial}` : ""}`;

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
