// ThinkRemed: per attempt, the Coordinator probes and prints a playbook; the Execution agent
// (ctx.executor) runs it; the Verification agent (ctx.scorer: settle, then the runner's checks)
// judges it. Pass ends the method; failure adds a reflection turn and starts the next attempt,
// at most T_max. A provider failure ends the method with `error` (the run goes on).

import { reportScope } from "../../diagnosis/levels.js";
import { renderReport } from "../../diagnosis/report.js";
import { type ChatMessage, emptyUsage, type Usage } from "../../llm/types.js";
import { type ProbeLimits, probeContract, probeLimits } from "../../probe/index.js";
import { fill, loadMethodDefinition, type MethodDefinition } from "../definition.js";
import { executionError } from "../errors.js";
import type { Attempt, Method, MethodContext, MethodResult } from "../types.js";
import { checkDefinition, configure, definedMaxAttempts, probeLimitsFrom } from "./config.js";
import { coordinate } from "./coordinator.js";
import { reflection } from "./reflection.js";

export class ThinkRemed implements Method {
  readonly name = "ThinkRemed";
  readonly maxAttempts: number;
  readonly probeLimits: Partial<ProbeLimits>;

  constructor(private readonly def: MethodDefinition = loadMethodDefinition("ThinkRemed")) {
    checkDefinition(def);
    this.maxAttempts = definedMaxAttempts(def);
    this.probeLimits = probeLimitsFrom(def);
  }

  async remediate(ctx: MethodContext): Promise<MethodResult> {
    const vars = {
      report: renderReport(ctx.report),
      reportScope: reportScope(ctx.report),
      namespace: ctx.report.namespace,
      identity: ctx.identity,
      // the probe's every rule and limit, from the code that enforces them
      probeContract: probeContract(probeLimits(this.probeLimits)),
    };
    const cfg = configure(this.def, vars, ctx.maxAttempts);
    const conversation: ChatMessage[] = [
      {
        role: "system",
        content: fill(this.def.system, { ...vars, maxProbeRounds: String(cfg.maxProbeRounds) }),
      },
      { role: "user", content: fill(this.def.user, vars) },
    ];
    // without a prober (no cluster behind the context) the Coordinator is not offered probing
    const tools = this.def.tools
      .filter((t) => t.name !== "probe_system" || ctx.prober)
      .map((t) => ({ ...t, description: fill(t.description, vars) }));
    const usage: Record<string, Usage> = { coordinator: emptyUsage() };
    const attempts: Attempt[] = [];
    for (let index = 1; index <= cfg.maxAttempts; index++) {
      const attempt: Attempt = { index, problems: [], probeRounds: 0 };
      attempts.push(attempt);
      const outcome = await coordinate({ ctx, cfg, tools, conversation, usage, attempt });
      if ("error" in outcome) return { attempts, conversation, usage, error: outcome.error };
      if ("problem" in outcome) attempt.problems.push(outcome.problem);
      else {
        attempt.playbook = outcome.playbook;
        attempt.execution = await ctx.executor.run(outcome.playbook, {
          caseDir: ctx.caseDir,
          name: `playbook-${index}`,
          namespace: ctx.report.namespace,
          signal: ctx.signal,
        });
        attempt.problems.push(...attempt.execution.problems);
        // a tool of the harness failed (ansible missing, the sandbox): no attempt can do better
        const broken = executionError(attempt.execution);
        if (broken) return { attempts, conversation, usage, error: broken };
        // a playbook that ran, even with a failed task, may have fixed the system: the verdict decides
        if (attempt.execution.accepted) {
          attempt.verdict = await ctx.scorer.score(ctx.signal);
          if (attempt.verdict.pass) break;
        }
      }
      if (index < cfg.maxAttempts) conversation.push({ role: "user", content: reflection(cfg, attempt) });
    }
    return { attempts, conversation, usage };
  }
}
