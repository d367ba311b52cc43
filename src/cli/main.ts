#!/usr/bin/env node
// The microremed command line: one file per command, one boundary that prints errors.
import { Command, CommanderError } from "commander";
import { isMicroRemedError } from "../errors.js";
import { packageVersion } from "../util/version.js";
import { registerDiff } from "./diff.js";
import { registerDoctor } from "./doctor.js";
import { registerEnv } from "./env.js";
import { registerExport } from "./export.js";
import { registerMcp } from "./mcp.js";
import { registerModels } from "./models.js";
import { registerReport } from "./report.js";
import { registerRun } from "./run.js";
import { registerRunAll } from "./run-all.js";
import { registerShow } from "./show.js";
import { registerSim } from "./sim.js";
import { registerSingleSteps } from "./single.js";

export function buildProgram(): Command {
  const program = new Command("microremed")
    .description("Benchmark how well LLMs repair broken microservice systems with Ansible playbooks")
    .version(packageVersion())
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerSim(program);
  registerRun(program);
  registerRunAll(program);
  registerSingleSteps(program);
  registerDoctor(program);
  registerMcp(program);
  registerModels(program);
  registerReport(program);
  registerShow(program);
  registerDiff(program);
  registerEnv(program);
  registerExport(program);
  return program;
}

/** The one place errors are printed: known ones as one line with the fix, others with their stack. */
export function reportError(e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode;
  if (isMicroRemedError(e)) {
    process.stderr.write(`${e.oneLine()}\n`);
    return e.code === "E_INTERRUPTED" ? 130 : e.code === "E_USAGE" ? 2 : 1;
  }
  process.stderr.write(
    `microremed: unexpected error (a bug; please report it with this trace):\n${(e as Error)?.stack ?? String(e)}\n`,
  );
  return 70;
}

async function main() {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}

await main();
