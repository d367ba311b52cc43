// trajectory.json beside a case's records: written by the runner when the case ends, and read
// (or, for runs made before it existed, made) by `microremed show --format atif`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { CaseRecord } from "../runlog/records.js";
import type { AtifTrajectory } from "./atif.js";
import { toTrajectory } from "./build.js";
import { readRecorded } from "./recorded.js";

export const TRAJECTORY_FILE = "trajectory.json";

/** The session id of a case: its run's folder name and its own (run/case-NNN[-tK]). */
export const sessionOf = (caseDir: string) => `${basename(dirname(caseDir))}/${basename(caseDir)}`;

/** The case's trajectory from its folder and record; undefined when it never reached its method. */
export function trajectoryOf(caseDir: string, rec: CaseRecord): AtifTrajectory | undefined {
  const recorded = readRecorded(join(caseDir, "conversation.json"));
  return recorded && toTrajectory(sessionOf(caseDir), rec, recorded);
}

/** Writes trajectory.json in the case folder (where the method ran); returns whether it did. */
export function writeTrajectory(caseDir: string, rec: CaseRecord): boolean {
  const t = trajectoryOf(caseDir, rec);
  if (t) writeFileSync(join(caseDir, TRAJECTORY_FILE), `${JSON.stringify(t, null, 2)}\n`);
  return !!t;
}

/** The trajectory as written, or made from the folder where the run predates trajectory.json. */
export function readTrajectory(caseDir: string, rec: CaseRecord): AtifTrajectory | undefined {
  const file = join(caseDir, TRAJECTORY_FILE);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as AtifTrajectory;
  return trajectoryOf(caseDir, rec);
}
