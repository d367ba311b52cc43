// The solve step of a case: the method acts as the case's identity, handed the model, the
// executor, the scorer, the prober and the agent launcher as roles, each wrapped to count its part
// of the remediation time as a real cluster would show it (timing.ts), with the embedded clock at
// the method's speed.
import type { DiagnosisReport } from "../diagnosis/report.js";
import type { AgentIdentity } from "../identity/agent.js";
import { accessText } from "../identity/describe.js";
import { executionError } from "../methods/errors.js";
import type { MethodError, MethodResult } from "../methods/types.js";
import type { MethodTimes } from "../runlog/records.js";
import type { Scorer } from "../verify/types.js";
import { actingAs } from "./acting.js";
import type { CaseContext } from "./context.js";
import { SandboxLauncher } from "./launcher.js";
import { timedExecutor, timedLauncher, timedModel, timedProber, timedScorer } from "./timing.js";

export async function solve(
  ctx: CaseContext,
  report: DiagnosisReport,
  scorer: Scorer,
  id: AgentIdentity,
  times: MethodTimes,
): Promise<MethodResult> {
  const speed = ctx.cfg.methodSpeed;
  const acting = actingAs({
    kubeconfig: id.kubeconfigPath,
    namespace: ctx.namespace,
    sandbox: ctx.cfg.sandbox,
    caseDir: ctx.caseDir,
    timeoutMs: ctx.cfg.playbookTimeout * 1000,
    probeLimits: ctx.method.probeLimits,
  });
  const probe = acting.prober;
  const launcher = new SandboxLauncher(acting.launcher);
  return ctx.time.realtime(speed, () =>
    ctx.method.remediate({
      report,
      identity: accessText(ctx.cfg.agentAccess, ctx.namespace),
      model: timedModel(ctx.model, times),
      executor: timedExecutor(acting.executor(ctx.executor), ctx.time, times),
      scorer: timedScorer(scorer, ctx.time, speed, times),
      prober: probe && timedProber(probe, times),
      launcher: timedLauncher(launcher, ctx.time, times),
      caseDir: ctx.caseDir,
      maxAttempts: ctx.maxAttempts,
      signal: ctx.signal,
    }),
  );
}

/** A failure of the run met while the method acted, if any: the provider's, or a tool's. */
export function runFailure(result: MethodResult): MethodError | undefined {
  if (result.error) return result.error;
  for (const a of result.attempts) {
    const e = executionError(a.execution);
    if (e) return { ...e, message: `attempt ${a.index}: ${e.message}` };
  }
  return undefined;
}
