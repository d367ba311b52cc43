// The solve step of a case: the method acts as the case's identity, handed the model, the
// executor, the scorer, the prober and the agent launcher as roles, each wrapped to count its part
// of the remediation time as a real cluster would show it (timing.ts), with the embedded clock at
// the method's speed.
import type { Executor } from "../ansible/executor.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import type { AgentIdentity } from "../identity/agent.js";
import { accessText } from "../identity/describe.js";
import { executionError } from "../methods/errors.js";
import type { MethodError, MethodResult, Prober } from "../methods/types.js";
import { createProbe, probeLimits } from "../probe/index.js";
import type { MethodTimes } from "../runlog/records.js";
import type { Scorer } from "../verify/types.js";
import type { CaseContext } from "./context.js";
import { SandboxLauncher } from "./launcher.js";
import { timedExecutor, timedLauncher, timedModel, timedProber, timedScorer } from "./timing.js";

/** The executor as the case's identity uses it: its kubeconfig, nothing of the harness's. */
function asIdentity(e: Executor, id: AgentIdentity): Executor {
  return { run: (playbook, opts) => e.run(playbook, { ...opts, kubeconfig: id.kubeconfigPath }) };
}

/** The probe role, when the method probes: kubectl as the case's identity, within the method's limits. */
function prober(ctx: CaseContext, id: AgentIdentity): Prober | undefined {
  if (!ctx.method.probeLimits) return undefined;
  const limits = probeLimits(ctx.method.probeLimits);
  return {
    probe: createProbe({
      kubeconfig: id.kubeconfigPath,
      namespace: ctx.namespace,
      timeoutMs: limits.timeoutSeconds * 1000,
      maxOutput: limits.maxOutput,
      maxCommands: limits.maxCommands,
      sandbox: ctx.cfg.sandbox,
    }),
  };
}

export async function solve(
  ctx: CaseContext,
  report: DiagnosisReport,
  scorer: Scorer,
  id: AgentIdentity,
  times: MethodTimes,
): Promise<MethodResult> {
  const speed = ctx.cfg.methodSpeed;
  const probe = prober(ctx, id);
  const launcher = new SandboxLauncher({
    mode: ctx.cfg.sandbox,
    kubeconfig: id.kubeconfigPath,
    caseDir: ctx.caseDir,
    timeoutMs: ctx.cfg.playbookTimeout * 1000,
  });
  return ctx.time.realtime(speed, () =>
    ctx.method.remediate({
      report,
      identity: accessText(ctx.cfg.agentAccess, ctx.namespace),
      model: timedModel(ctx.model, times),
      executor: timedExecutor(asIdentity(ctx.executor, id), ctx.time, times),
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
