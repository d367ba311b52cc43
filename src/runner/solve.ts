// The solve step of a case: the method acts as the case's identity, handed the model, the
// executor, the scorer, the prober and the agent launcher as roles, each wrapped to count its part
// of the remediation time as a real cluster would show it (timing.ts), with the embedded clock at
// the method's speed.
import type { Executor } from "../ansible/executor.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import type { AgentIdentity } from "../identity/agent.js";
import { accessText } from "../identity/describe.js";
import type { Model } from "../llm/types.js";
import { executionError } from "../methods/errors.js";
import type { Method, MethodContext, MethodError, MethodResult } from "../methods/types.js";
import type { MethodTimes } from "../runlog/records.js";
import { toldScorer } from "../verify/told.js";
import type { Scorer } from "../verify/types.js";
import { actingAs } from "./acting.js";
import type { RunConfig } from "./config.js";
import type { CaseScope, Solver } from "./context.js";
import { SandboxLauncher } from "./launcher.js";
import { timedExecutor, timedLauncher, timedModel, timedProber, timedScorer } from "./timing.js";

/** What the method's step is built with: the method, the model and executor it is handed, and the run's settings it reads. */
export interface SolveParts {
  method: Method;
  model: Model;
  executor: Executor;
  /** T_max in force (the method's, or --max-attempts). */
  maxAttempts: number;
  caseDir: string;
  cfg: Pick<RunConfig, "sandbox" | "methodSpeed" | "agentAccess" | "playbookTimeout">;
}

/**
 * The method acts on the report as the case's identity, each part it is handed timed into times,
 * with the clock at the method's speed while it acts.
 */
export async function solve(
  ctx: SolveParts,
  scope: CaseScope,
  report: DiagnosisReport,
  scorer: Scorer,
  id: AgentIdentity,
  times: MethodTimes,
): Promise<MethodResult> {
  const speed = ctx.cfg.methodSpeed;
  const acting = actingAs({
    kubeconfig: id.kubeconfigPath,
    namespace: scope.namespace,
    sandbox: ctx.cfg.sandbox,
    caseDir: ctx.caseDir,
    timeoutMs: ctx.cfg.playbookTimeout * 1000,
    probeLimits: ctx.method.probeLimits,
  });
  const probe = acting.prober;
  const launcher = new SandboxLauncher(acting.launcher);
  const executor = acting.executor(ctx.executor);
  const handed: MethodContext = {
    report,
    identity: accessText(ctx.cfg.agentAccess, scope.namespace),
    model: timedModel(ctx.model, times),
    scorer: timedScorer(toldScorer(scorer, report), scope.time, speed, times),
    prober: probe && timedProber(probe, times),
    launcher: timedLauncher(launcher, scope.time, times),
    executor: timedExecutor(executor, scope.time, times),
    caseDir: ctx.caseDir,
    maxAttempts: ctx.maxAttempts,
    signal: scope.signal,
  };
  return scope.time.realtime(speed, () => ctx.method.remediate(handed));
}

/** The solve role of a case: solve with the method, model and executor it was built with. */
export const methodSolver = (parts: SolveParts): Solver => ({
  solve: (scope, report, scorer, id, times) => solve(parts, scope, report, scorer, id, times),
});

/** A failure of the run met while the method acted, if any: the provider's, or a tool's. */
export function runFailure(result: MethodResult): MethodError | undefined {
  if (result.error) return result.error;
  for (const a of result.attempts) {
    const e = executionError(a.execution);
    if (e) return { ...e, message: `attempt ${a.index}: ${e.message}` };
  }
  return undefined;
}
