// `microremed run`: the reference's custom mode (inject_and_remediate.py) with its flags.
import type { Command } from "commander";
import { formatSummary, type RunSummary } from "../runlog/summary.js";
import type { RunConfig } from "../runner/config.js";
import { openCluster } from "./cluster.js";
import { addRunOptions, toRunConfig } from "./run-options.js";
import { checkTools } from "./tools.js";

/**
 * Run one or more configurations on one cluster connection (run-all deploys once and runs every
 * method and tier on it); the signal aborts the current case, which is cleaned up and recorded.
 */
export async function runConfigs(
  cfgs: RunConfig[],
  hooks: { log: (line: string) => void; signal: AbortSignal },
  onSummary: (s: RunSummary) => void = () => {},
): Promise<RunSummary[]> {
  const { prepareRun, runExperiments } = await import("../runner/run.js");
  const { runLead } = await import("../runner/lead.js");
  // the tools first: without kubectl (or bubblewrap) nothing else is worth checking
  await checkTools(hooks.log);
  const prepared = await Promise.all(cfgs.map((c) => prepareRun(c)));
  const first = cfgs[0];
  const conn = await openCluster({
    cluster: first.cluster,
    kubeconfig: first.kubeconfig,
    context: first.context,
    speed: first.speed,
    seed: first.seed,
    egress: first.egress,
    env: first.env,
    // as far behind the wall clock as this run's fast phases will gain, and no further
    lead: runLead(prepared),
  });
  try {
    const out: RunSummary[] = [];
    for (let i = 0; i < cfgs.length; i++) {
      const s = await runExperiments(cfgs[i], conn, hooks, prepared[i]);
      onSummary(s);
      out.push(s);
    }
    return out;
  } finally {
    await conn.close();
  }
}

/** runConfigs with Ctrl-C wired to the abort signal: the current case is cleaned up and recorded before the process exits. */
export async function runWithSignals(
  cfgs: RunConfig[],
  onSummary: (s: RunSummary) => void = () => {},
): Promise<RunSummary[]> {
  const ac = new AbortController();
  const onSignal = () => {
    process.stderr.write("\ninterrupted: cleaning up the current case (press Ctrl-C again to force)\n");
    ac.abort();
    process.once("SIGINT", () => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await runConfigs(
      cfgs,
      { log: (l) => process.stderr.write(`${l}\n`), signal: ac.signal },
      onSummary,
    );
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}

export function registerRun(program: Command) {
  const cmd = program
    .command("run")
    .description(
      "Inject failures from an experiment file and measure how a method and model remediate them (the reference's custom mode)",
    );
  addRunOptions(cmd).action(async (opts: Record<string, unknown>) => {
    const cfg = toRunConfig(opts);
    await runWithSignals([cfg], (s) => process.stdout.write(formatSummary(s)));
  });
}
