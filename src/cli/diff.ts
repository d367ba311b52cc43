// `microremed diff <run-a> <run-b>`: two runs of the same cases side by side: solved by both, by A
// only, by B only, by neither, with each side's reason. Runs of other cases are refused.
import type { Command } from "commander";
import { MicroRemedError } from "../errors.js";
import { diffRuns, formatDiff, loadRun } from "../report/index.js";
import { findRunFolders } from "../report/load.js";

function oneRun(dir: string) {
  let found: string[];
  try {
    found = findRunFolders(dir);
  } catch {
    found = [];
  }
  if (found.length !== 1)
    throw new MicroRemedError(
      "E_CONFIG",
      found.length ? `${dir} holds ${found.length} runs, not one` : `${dir} is not a run folder`,
      found.length
        ? `pass one of them: ${found.slice(0, 5).join(", ")}`
        : "pass the folder of one run (its --save-path/<run name>, with run.json and cases.jsonl)",
    );
  return loadRun(found[0]);
}

export function registerDiff(program: Command) {
  program
    .command("diff")
    .description("Compare two runs of the same cases: solved by both, A only, B only, neither, with reasons")
    .argument("<run-a>", "a run folder")
    .argument("<run-b>", "a run folder with the same system, experiment file, seed and --experiments")
    .option("--json", "print the comparison as JSON")
    .action((a: string, b: string, o: { json?: boolean }) => {
      const d = diffRuns(oneRun(a), oneRun(b));
      process.stdout.write(o.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiff(d));
    });
}
