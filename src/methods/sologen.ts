// SoloGen: one prompt, one playbook. The model gets the diagnosis report and must call
// print_playbook; the playbook is executed once.

import { reportScope } from "../diagnosis/levels.js";
import { renderReport } from "../diagnosis/report.js";
import { addUsage, type ChatMessage, emptyUsage } from "../llm/types.js";
import { readPlaybook } from "./answer.js";
import { fill, loadMethodDefinition, type MethodDefinition } from "./definition.js";
import { executionError, methodError } from "./errors.js";
import type { Attempt, Method, MethodContext, MethodResult } from "./types.js";

export class SoloGen implements Method {
  readonly name = "SoloGen";
  readonly maxAttempts = 1;

  constructor(private readonly def: MethodDefinition = loadMethodDefinition("SoloGen")) {}

  async remediate(ctx: MethodContext): Promise<MethodResult> {
    const vars = {
      report: renderReport(ctx.report),
      reportScope: reportScope(ctx.report),
      namespace: ctx.report.namespace,
      identity: ctx.identity,
    };
    const conversation: ChatMessage[] = [
      { role: "system", content: fill(this.def.system, vars) },
      { role: "user", content: fill(this.def.user, vars) },
    ];
    const attempt: Attempt = { index: 1, problems: [], probeRounds: 0 };
    let usage = emptyUsage();
    try {
      const res = await ctx.model.generate({
        messages: conversation,
        tools: this.def.tools,
        role: "generator",
        signal: ctx.signal,
      });
      usage = addUsage(usage, res.usage);
      conversation.push(res.message);
      const answer = readPlaybook(res.message);
      if ("problem" in answer) {
        attempt.problems.push(answer.problem);
        return { attempts: [attempt], conversation, usage: { generator: usage } };
      }
      attempt.playbook = answer.playbook;
      attempt.execution = await ctx.executor.run(answer.playbook, {
        caseDir: ctx.caseDir,
        name: "playbook-1",
        namespace: ctx.report.namespace,
        signal: ctx.signal,
      });
      attempt.problems.push(...attempt.execution.problems);
      const broken = executionError(attempt.execution);
      return {
        attempts: [attempt],
        conversation,
        usage: { generator: usage },
        ...(broken ? { error: broken } : {}),
      };
    } catch (e) {
      // A provider failure is data on the case; the run goes on.
      return { attempts: [attempt], conversation, usage: { generator: usage }, error: methodError(e) };
    }
  }
}
