// One attempt's Coordinator turns: the model probes (each probe_system call runs in the sandbox
// and its observation comes back as the tool result) until it calls print_playbook. Bounded:
// after maxProbeRounds the probe answers that the budget is spent; after maxCoordinatorTurns, or a
// second plain-text answer after one reminder, the attempt ends without a playbook.
import { addUsage, type ChatMessage, type ToolSchema, type Usage } from "../../llm/types.js";
import { playbookArgument, playbookFromText } from "../answer.js";
import { diagnosisArgument, SUBMIT_DIAGNOSIS } from "../diagnosis.js";
import { methodError } from "../errors.js";
import type { Attempt, MethodContext, MethodError } from "../types.js";
import { answer, type Call, callsOf, commandArg } from "./calls.js";
import type { ThinkRemedConfig } from "./config.js";

export type Outcome = { playbook: string } | { problem: string } | { error: MethodError };

export interface Turns {
  ctx: MethodContext;
  cfg: ThinkRemedConfig;
  tools: ToolSchema[];
  conversation: ChatMessage[];
  /** Usage per agent role, added to as the Coordinator speaks. */
  usage: Record<string, Usage>;
  attempt: Attempt;
}

/** What one call is answered with; a playbook when it is the (first valid) print_playbook. */
async function handle(
  call: Call,
  t: Turns,
  taken: boolean,
): Promise<{ observation: string; playbook?: string }> {
  const { cfg, ctx, attempt } = t;
  if (call.name === "print_playbook") {
    const arg = playbookArgument(call.arguments);
    if ("problem" in arg) {
      attempt.probeRounds++;
      return { observation: arg.problem };
    }
    if (taken) return { observation: "Only the first playbook of a turn is executed; this one was ignored." };
    return { observation: cfg.prompt("playbookReceived"), playbook: arg.playbook };
  }
  if (call.name === "probe_system") {
    if (taken) return { observation: "Not run: the playbook was submitted in the same turn." };
    if (attempt.probeRounds >= cfg.maxProbeRounds) return { observation: cfg.prompt("probeBudgetSpent") };
    attempt.probeRounds++;
    const arg = commandArg(call.arguments);
    if ("problem" in arg) return { observation: arg.problem };
    if (!ctx.prober) return { observation: cfg.prompt("probeUnavailable") };
    return { observation: await ctx.prober.probe(arg.command) };
  }
  if (call.name === SUBMIT_DIAGNOSIS) {
    // recorded from the conversation once the method ends (methods/diagnosis.ts)
    const arg = diagnosisArgument(call.arguments);
    return { observation: "problem" in arg ? arg.problem : "Diagnosis recorded." };
  }
  attempt.probeRounds++;
  return {
    observation: `There is no tool named "${call.name}"; use ${t.tools.map((x) => x.name).join(" or ")}.`,
  };
}

export async function coordinate(t: Turns): Promise<Outcome> {
  const { ctx, cfg, conversation } = t;
  let reminded = false;
  for (let turn = 0; turn < cfg.maxCoordinatorTurns; turn++) {
    let res: Awaited<ReturnType<typeof ctx.model.generate>>;
    try {
      res = await ctx.model.generate({
        messages: conversation,
        tools: t.tools,
        role: "coordinator",
        signal: ctx.signal,
      });
    } catch (e) {
      // a provider failure is data on the case; the run goes on
      return { error: methodError(e) };
    }
    t.usage.coordinator = addUsage(t.usage.coordinator, res.usage);
    conversation.push(res.message);
    const calls = callsOf(res.message);
    if (!calls.length) {
      const written = playbookFromText(res.message.content);
      if (written !== undefined) return { playbook: written };
      if (reminded)
        return {
          problem: "the Coordinator answered in plain text again after a reminder, without calling a tool",
        };
      reminded = true;
      conversation.push({ role: "user", content: cfg.prompt("reminder") });
      continue;
    }
    let playbook: string | undefined;
    for (const call of calls) {
      const r = await handle(call, t, playbook !== undefined);
      playbook ??= r.playbook;
      conversation.push(answer(call, r.observation));
    }
    if (playbook !== undefined) return { playbook };
  }
  return { problem: `no playbook after ${cfg.maxCoordinatorTurns} Coordinator turns` };
}
