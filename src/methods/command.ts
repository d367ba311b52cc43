// cmd:COMMAND: an external agent in any language. It gets the diagnosis report as JSON on stdin
// and acts as the case's identity (its confined kubeconfig, in the sandbox, under a time limit):
// it may fix the cluster itself, or print a playbook on stdout for the executor, or both. Its
// output and exit code are recorded; the outcome is verified as for every method.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { reportScope } from "../diagnosis/levels.js";
import { renderReport } from "../diagnosis/report.js";
import { playbookFromText } from "./answer.js";
import { agentError } from "./errors.js";
import type { Attempt, Method, MethodContext, MethodResult } from "./types.js";

export class CommandAgent implements Method {
  readonly name: string;
  readonly maxAttempts = 1;

  constructor(readonly command: string) {
    this.name = `cmd:${command}`;
  }

  async remediate(ctx: MethodContext): Promise<MethodResult> {
    const attempt: Attempt = { index: 1, problems: [], probeRounds: 0 };
    const result: MethodResult = { attempts: [attempt], conversation: [], usage: {} };
    if (!ctx.launcher) {
      result.error = { reason: "harness", message: "the run gave the agent no way to start (no launcher)" };
      return result;
    }
    const input = JSON.stringify(
      {
        ...ctx.report,
        report: renderReport(ctx.report),
        // what the report of the run's level holds, as the methods' prompts say it
        scope: reportScope(ctx.report),
        identity: ctx.identity,
      },
      null,
      2,
    );
    const run = await ctx.launcher.launch(this.command, input, ctx.signal);
    const { stdout, stderr, ...facts } = run;
    attempt.agent = facts;
    writeFileSync(join(ctx.caseDir, "agent.stdout"), stdout);
    writeFileSync(join(ctx.caseDir, "agent.stderr"), stderr);
    result.conversation.push({ role: "user", content: input }, { role: "assistant", content: stdout });
    const broken = agentError(run.cause, stderr);
    if (broken) {
      result.error = broken;
      return result;
    }
    if (run.timedOut) {
      attempt.problems.push(
        `timed out: the agent ran past its time limit (${Math.round(run.durationMs / 1000)} s) and was killed`,
      );
      return result;
    }
    if (run.exitCode !== 0)
      attempt.problems.push(
        `the agent exited with code ${run.exitCode}${stderr.trim() ? `: ${stderr.trim().slice(-300)}` : ""}`,
      );
    const playbook = playbookFromText(stdout);
    if (playbook !== undefined && run.exitCode === 0) {
      attempt.playbook = playbook;
      attempt.execution = await ctx.executor.run(playbook, {
        caseDir: ctx.caseDir,
        name: "playbook-1",
        namespace: ctx.report.namespace,
        signal: ctx.signal,
      });
      attempt.problems.push(...attempt.execution.problems);
    }
    return result;
  }
}
