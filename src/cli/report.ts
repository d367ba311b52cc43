// `microremed report <log_dir>...`: merge the runs under the given folders into one report
// (Markdown tables, JSON, or a self-contained HTML page with charts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Command } from "commander";
import { parseCases, parseFormat, reportFrom } from "../report/index.js";

export function registerReport(program: Command) {
  program
    .command("report")
    .description(
      "Report success, cost and verdicts per model, method, tier, failure type and system across runs",
    )
    .argument(
      "<log_dir...>",
      "run folders, or folders holding them (run-all's log_dir, run's --save-path); the folders of a run's shards (--shard i/n) are merged into that run",
    )
    .option("--format <md|json|html>", "md (tables), json (the same data), html (one file with charts)", "md")
    .option("--out <file>", "write the report to a file instead of stdout")
    .option(
      "--cases <which>",
      "html: the cases that get a trace: failed (did not succeed), all, none, or numbers like 3,7",
      "failed",
    )
    .action((dirs: string[], o: { format: string; out?: string; cases: string }) => {
      // the format is checked before any run is read, so a typo fails fast
      const text = reportFrom(dirs, parseFormat(o.format), parseCases(o.cases));
      if (o.out) {
        mkdirSync(dirname(o.out), { recursive: true });
        writeFileSync(o.out, text);
        process.stderr.write(`report written to ${o.out}\n`);
      } else process.stdout.write(text);
    });
}
