// `microremed run`: the reference's custom mode (inject_and_remediate.py) with its flags.
import type { Command } from "commander";
import { usageError } from "../errors.js";
import type { RunConfig } from "../runner/config.js";
import { prepareRun, runExperiments } from "../runner/run.js";
import { formatSummary, type RunSummary } from "../runner/summary.js";
import { openCluster } from "./cluster.js";
import { checkTools } from "./tools.js";
import { addRunOptions, toRunConfig } from "./run-options.js";

/** Run with Ctrl-C wired to the abort signal: the current case is cleaned up before exit. */
export async function runWithSignals(cfg: RunConfig): Promise<RunSummary> {
  const prepared = prepareRun(cfg);
  await checkTools();
  const ac = new AbortController();
  const onSignal = () => {
    process.stderr.write("\ninterrupted: cleaning up the current case (press Ctrl-C again to force)\n");
    ac.abort();
    process.once("SIGINT", () => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const conn = await openCluster({ cluster: cfg.cluster, kubeconfig: cfg.kubeconfig, context: cfg.context, speed: cfg.speed, seed: cfg.seed });
  try {
    return await runExperiments(cfg, conn, { log: (l) => process.stderr.write(`${l}\n`), signal: ac.signal }, prepared);
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    await conn.close();
  }
}

export function registerRun(program: Command) {
  const cmd = program.command("run").description("Inject failures from an experiment file and measure how a method and model remediate them (the reference's custom mode)");
  addRunOptions(cmd).action(async (opts: Record<string, unknown>) => {
    if (!opts.model) throw usageError("--model is required", "pass --model oracle, noop, scripted:<file> or a provider model (microremed models lists them)");
    const cfg = toRunConfig(opts);
    const summary = await runWithSignals(cfg);
    process.stdout.write(formatSummary(summary));
  });
}
