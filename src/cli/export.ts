// `microremed export harbor`: every case of the chosen tiers as a Harbor task folder; and
// `microremed task start|verify`, the two steps a task's container runs (its entrypoint and its
// tests/test.sh), which only the harness's admin kubeconfig can run.
import type { Command } from "commander";
import { parseReportLevel, type ReportLevel } from "../diagnosis/levels.js";
import { usageError } from "../errors.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";

interface ExportFlags {
  env: string;
  tiers: string;
  report: ReportLevel;
  seed: number;
  speed: number;
  methodSpeed: number;
  settle: number;
  hold?: number;
  injectionTimeout: number;
  agentTimeout: number;
  limit?: number;
  package?: string;
}

function parseOwner(v: string): { uid: number; gid: number } {
  const m = /^(\d+):(\d+)$/.exec(v);
  if (!m) throw usageError(`--owner must be UID:GID, got "${v}"`, "pass e.g. --owner 1000:1000");
  return { uid: Number(m[1]), gid: Number(m[2]) };
}

export function registerExport(program: Command) {
  const exp = program.command("export").description("Write cases in another harness's task format");
  exp
    .command("harbor")
    .description(
      "One Harbor task folder per case (task.toml, instruction.md, environment/, tests/test.sh, solution/solve.sh)",
    )
    .argument("<out>", "folder to write the task folders into")
    .option("--env <name>", "simple-micro, online-boutique or train-ticket", "simple-micro")
    .option("--tiers <list>", "comma-separated tiers: easy, medium, hard, expert", "easy,medium,hard")
    .option(
      "--report <level>",
      "the report the agent gets: full, service or symptom",
      parseReportLevel,
      "full",
    )
    .option("--seed <n>", "seed that draws each case's target", (v) => parseNonNegativeInt(v, "--seed"), 42)
    .option("--limit <n>", "only the first N cases of each tier", (v) => parsePositive(v, "--limit", true))
    .option(
      "--speed <factor>",
      "cluster clock speed while the container deploys, injects and scores",
      (v) => parsePositive(v, "--speed"),
      60,
    )
    .option(
      "--method-speed <factor>",
      "cluster clock speed while the agent acts (1: a chaos duration means what it means on k3s)",
      (v) => parsePositive(v, "--method-speed"),
      1,
    )
    .option(
      "--settle <s>",
      "cluster seconds after the agent before the checks",
      (v) => parseNonNegativeInt(v, "--settle"),
      10,
    )
    .option(
      "--hold <s>",
      "cluster seconds every check must keep passing (default: 60 for the expert tier, none for the reference's)",
      (v) => parseNonNegativeInt(v, "--hold"),
    )
    .option(
      "--injection-timeout <s>",
      "cluster seconds for the fault to show at start",
      (v) => parsePositive(v, "--injection-timeout"),
      30,
    )
    .option(
      "--agent-timeout <s>",
      "wall seconds the agent may take",
      (v) => parsePositive(v, "--agent-timeout"),
      900,
    )
    .option("--package <tgz>", "MicroRemed as an npm tarball for the image (default: npm pack of this one)")
    .action(async (out: string, o: ExportFlags) => {
      const { exportHarbor } = await import("../harbor/export.js");
      const tiers = o.tiers
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
      const dirs = exportHarbor({
        ...o,
        tiers,
        out,
        agentTimeoutSec: o.agentTimeout,
        packageTarball: o.package,
      });
      process.stdout.write(
        `${dirs.length} Harbor task(s) in ${out}; run one with: harbor run -p ${dirs[0] ?? out} -a claude-code -m anthropic/claude-sonnet-4-5\n`,
      );
    });

  const task = program
    .command("task")
    .description("The steps a Harbor task's container runs: start (its entrypoint) and verify (its test.sh)");
  task
    .command("start")
    .description("Deploy the system, inject the case and issue the agent's identity and report")
    .argument("<case>", "the task's case.json")
    .requiredOption("--kubeconfig <file>", "the embedded cluster's admin kubeconfig")
    .requiredOption("--state <dir>", "the harness's own folder (state.json)")
    .requiredOption("--agent-kubeconfig <file>", "where the agent's kubeconfig goes")
    .requiredOption("--workdir <dir>", "the agent's working folder (the report, the inventory)")
    .option("--owner <uid:gid>", "make the agent's files its own (when run as root)", parseOwner)
    .action(
      async (
        file: string,
        o: {
          kubeconfig: string;
          state: string;
          agentKubeconfig: string;
          workdir: string;
          owner?: { uid: number; gid: number };
        },
      ) => {
        const [{ readCase }, { startTask }] = await Promise.all([
          import("../harbor/case.js"),
          import("../harbor/start.js"),
        ]);
        const s = await startTask(readCase(file), o);
        process.stdout.write(
          `${s.case.name}: ${s.case.faults.map((f) => `${f.failure} in ${f.target}`).join(", ")} shows; the agent acts as ${s.agent}\n`,
        );
      },
    );
  task
    .command("verify")
    .description("Score the case as a run does and write Harbor's reward.json")
    .requiredOption("--kubeconfig <file>", "the embedded cluster's admin kubeconfig")
    .requiredOption("--state <dir>", "the folder task start wrote")
    .requiredOption("--logs <dir>", "Harbor's verifier log folder (reward.json goes there)")
    .requiredOption("--workdir <dir>", "the agent's working folder (its diagnosis.json, if any)")
    .action(async (o: { kubeconfig: string; state: string; logs: string; workdir: string }) => {
      const { verifyTask } = await import("../harbor/verify.js");
      const { reward, score } = await verifyTask(o);
      process.stdout.write(`${JSON.stringify(reward)}: ${score.reason}\n`);
    });
}
