// `microremed show <run> [case] --format atif`: a case's trajectory in ATIF v1.4 (its
// trajectory.json, or made from its folder for runs older than the file), or, without a case,
// every case's as a JSON array. Cases that never reached their method have none.
import { MicroRemedError } from "../errors.js";
import type { LoadedRun } from "../report/runs.js";
import { caseDirOf, trialOf } from "../report/trace.js";
import type { CaseRecord } from "../runlog/records.js";
import { type AtifTrajectory, readTrajectory } from "../trajectory/index.js";

const of = (run: LoadedRun, rec: CaseRecord) =>
  readTrajectory(caseDirOf(run.dir, rec.index, trialOf(rec)), rec);

/** The text `show --format atif` prints: one trajectory (rec given), or all of the run's. */
export function atifText(run: LoadedRun, rec?: CaseRecord): string {
  if (rec) {
    const t = of(run, rec);
    if (!t)
      throw new MicroRemedError(
        "E_USAGE",
        `case ${rec.index} of ${run.dir} has no trajectory: it ended (${rec.status}) before its method ran`,
        "pass a case that reached its method, or leave the case out for every trajectory of the run",
      );
    return `${JSON.stringify(t, null, 2)}\n`;
  }
  const all = run.cases.flatMap((c): AtifTrajectory[] => {
    const t = of(run, c);
    return t ? [t] : [];
  });
  return `${JSON.stringify(all, null, 2)}\n`;
}
