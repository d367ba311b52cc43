// `microremed show <run-dir> <case>`: one case's trace in the terminal, the same the HTML report
// holds: the diagnosis report, the conversation, each playbook, the tasks, the verdicts, the
// phases, tokens and cost, and why the case ended as it did. `--format atif`: its trajectory in
// ATIF instead (show-atif.ts), or every case's when no case is named.
import type { Command } from "commander";
import { MicroRemedError, usageError } from "../errors.js";
import { formatTrace, loadRun, readTrace } from "../report/index.js";
import { findRunFolders } from "../report/load.js";
import { trialOf } from "../report/trace.js";
import { parsePositive } from "../util/parse.js";
import { atifText } from "./show-atif.js";

/** A case named by its number (3, 003) or its folder's name (case-003). */
function caseNumber(which: string): number {
  const m = /^(?:case-)?0*([1-9]\d*)$/.exec(which);
  if (!m)
    throw usageError(
      `<case> must be a case's number or its folder's name, got "${which}"`,
      "pass e.g. 3 or case-003",
    );
  return Number(m[1]);
}

export function registerShow(program: Command) {
  program
    .command("show")
    .description(
      "Print one case's trace: report, conversation, playbooks, tasks, verdicts, phases, tokens, reason",
    )
    .argument("<run-dir>", "a run folder (with run.json and cases.jsonl)")
    .argument(
      "[case]",
      "the case: its number or its folder's name (3 or case-003); every case's with --format atif when left out",
    )
    .option("--full", "print long messages and outputs whole")
    .option("--trial <n>", "which trial of the case, in a run made with --trials", "1")
    .option("--format <text|atif>", "text, or the trajectory in ATIF v1.4 (Harbor's) as JSON", "text")
    .action(
      (dir: string, which: string | undefined, o: { full?: boolean; trial: string; format: string }) => {
        if (o.format !== "text" && o.format !== "atif")
          throw usageError(`unknown --format "${o.format}"`, "use text or atif");
        if (which === undefined && o.format === "text")
          throw usageError(
            "show needs a case number",
            "pass one (e.g. 3 or case-003), or --format atif for every case",
          );
        const trial = parsePositive(o.trial, "--trial", true, "2");
        const found = findRunFolders(dir);
        if (found.length !== 1)
          throw new MicroRemedError(
            "E_CONFIG",
            found.length ? `${dir} holds ${found.length} runs` : `${dir} is not a run folder`,
            found.length
              ? `pass one of them: ${found.slice(0, 5).join(", ")}`
              : "pass the folder of one run (its --save-path/<run name>, with run.json and cases.jsonl)",
          );
        const run = loadRun(found[0]);
        if (which === undefined) return void process.stdout.write(atifText(run));
        const index = caseNumber(which);
        const rec = run.cases.find((c) => c.index === index && (trialOf(c) ?? 1) === trial);
        if (!rec)
          throw new MicroRemedError(
            "E_USAGE",
            `${found[0]} has no finished case ${index}${trial > 1 ? ` (trial ${trial})` : ""}`,
            `pass one of its cases: ${run.cases.map((c) => c.index).join(", ") || "(none finished yet)"}`,
          );
        process.stdout.write(
          o.format === "atif" ? atifText(run, rec) : formatTrace(readTrace(run.dir, rec), { full: o.full }),
        );
      },
    );
}
