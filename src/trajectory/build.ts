// One case's trajectory in ATIF v1.4, made from what the case recorded: its conversation.json
// (the model's turns, tool calls and observations, each turn's usage and time where stamped, the
// attempts' playbook runs) and its record (the model, the method, the totals, the outcome).
// Methods that asked no model for their prompt (a module method, an empty conversation) begin
// with a user step holding the diagnosis report they were handed.
import type { CaseRecord } from "../runlog/records.js";
import { packageVersion } from "../util/version.js";
import { ATIF_VERSION, type AtifTrajectory, type Json } from "./atif.js";
import { withExecutions } from "./executions.js";
import type { RecordedCase } from "./recorded.js";
import { conversationSteps, type Draft } from "./steps.js";

const NOTES =
  "Written by MicroRemed from the case's conversation.json and its record. Agent steps are the model's turns " +
  "(for cmd: and mcp: agents, the agent's MCP calls and its stdout, with no model metrics); tool observations are " +
  "what the probe, kubectl or the MCP tools returned; system steps after a playbook hand-over are the executor's " +
  "run of it and the method's own verdict. A step the method did not stamp with a time takes the previous step's " +
  "(the case's start for the first). extra.microremed holds the case's outcome.";

/** An external agent calls its own model: the run's --model was not what spoke. */
const externalAgent = (method: string) => method.startsWith("cmd:") || method.startsWith("mcp:");

function reportStep(report: unknown, timestamp: string): Draft {
  return {
    source: "user",
    timestamp,
    message: JSON.stringify(report ?? {}, null, 2),
    extra: { note: "the diagnosis report the method was handed (it recorded no prompt of its own)" },
  };
}

export function toTrajectory(sessionId: string, rec: CaseRecord, recorded: RecordedCase): AtifTrajectory {
  const external = externalAgent(rec.method);
  const modelName = external ? undefined : rec.model;
  let steps = conversationSteps(recorded.conversation, rec.startedAt, modelName);
  if (!steps.length || (steps[0].source !== "system" && steps[0].source !== "user"))
    steps = [reportStep(recorded.report, rec.startedAt), ...steps];
  steps = withExecutions(steps, recorded.attempts);
  const t = rec.tokens;
  const outcome: Json = {
    case: rec.index,
    ...(rec.trial ? { trial: rec.trial } : {}),
    failure: rec.failure,
    target: rec.target,
    status: rec.status,
    success: rec.success,
    ...(rec.reason ? { reason: rec.reason } : {}),
    attempts: rec.attempts,
    probe_rounds: rec.probeRounds,
    ...(rec.remediationSeconds !== undefined ? { remediation_seconds: rec.remediationSeconds } : {}),
    started_at: rec.startedAt,
    finished_at: rec.finishedAt,
    ...(recorded.attempts.some((a) => a.agent)
      ? { agent_runs: recorded.attempts.map((a) => a.agent ?? null) }
      : {}),
  };
  return {
    schema_version: ATIF_VERSION,
    session_id: sessionId,
    agent: {
      name: rec.method,
      // the harness that wrote the trajectory (package.json's version)
      version: packageVersion(),
      ...(modelName ? { model_name: modelName } : {}),
      extra: { harness: "microremed", ...(external ? { harness_model: rec.model } : {}) },
    },
    notes: NOTES,
    steps: steps.map((s, i) => ({ step_id: i + 1, ...s })),
    final_metrics: {
      total_prompt_tokens: t.inputTokens,
      total_completion_tokens: t.outputTokens,
      total_cached_tokens: t.cachedTokens ?? 0,
      ...(t.costUsd !== undefined ? { total_cost_usd: t.costUsd } : {}),
      total_steps: steps.length,
      extra: {
        usage_by_role: rec.usageByRole,
        ...(t.reasoningTokens ? { reasoning_tokens: t.reasoningTokens } : {}),
        ...(t.estimated ? { estimated: true } : {}),
      },
    },
    extra: { microremed: outcome },
  };
}
