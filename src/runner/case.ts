// One case, as a pipeline of roles (docs/architecture.md):
//   prepare (a healthy namespace) → inject → confirm → identity → diagnose → solve (the method,
//   handed the executor, the scorer and the prober) → settle + score → restore
// and always, whatever happens (error, timeout, Ctrl-C): stop the chaos, restore the targets,
// delete the agent's identity. The roles come in with the case's context (context.ts; the
// defaults are roles.ts's); what the case learns is kept as facts, and the record is made of them
// in one place (runlog/records.ts). A case ends as success, failure (the answer did not
// remediate, or the cluster refused it), injection failure (the fault never showed) or error
// (provider, tool or cluster: left out of the success rate).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { failure as failureSpec } from "../chaos/catalog.js";
import type { Injection } from "../chaos/inject.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import { errorLine, isMicroRemedError, reasonOf } from "../errors.js";
import type { AgentIdentity } from "../identity/agent.js";
import { changesIn } from "../localization/audit.js";
import { scoreLocalization } from "../localization/score.js";
import { statedDiagnosis } from "../methods/diagnosis.js";
import type { MethodResult } from "../methods/types.js";
import { type CaseFacts, type CaseRecord, caseRecord, type Phases } from "../runlog/records.js";
import { writeTrajectory } from "../trajectory/index.js";
import type { CaseContext, CaseRoles, Fault } from "./context.js";
import type { PlannedCase } from "./experiments.js";
import { caseNoise, undoCaseNoise } from "./noise.js";
import { DEFAULT_ROLES } from "./roles.js";
import { runFailure, solve } from "./solve.js";
import { emptyTimes } from "./timing.js";

/** A case as it runs: its context and roles, what it learned, and what cleanup must undo. */
interface Running {
  ctx: CaseContext;
  roles: CaseRoles;
  faults: Fault[];
  facts: CaseFacts;
  injections: Injection[];
  identity?: AgentIdentity;
}

/** fn's wall time, added to the phase's. */
async function timed<T>(phases: Phases, key: keyof Phases, fn: () => Promise<T>): Promise<T> {
  const t = Date.now();
  try {
    return await fn();
  } finally {
    phases[key] = (phases[key] ?? 0) + (Date.now() - t);
  }
}

export async function runCase(planned: PlannedCase, ctx: CaseContext, trial?: number): Promise<CaseRecord> {
  const faults = planned.faults.map((f) => ({
    spec: failureSpec(f.failure),
    service: f.service,
    params: f.params,
    vars: f.vars,
  }));
  const c: Running = {
    ctx,
    roles: { ...DEFAULT_ROLES, ...ctx.roles },
    faults,
    facts: {
      index: planned.index,
      trial,
      faults: faults.map((f) => ({ failure: f.spec.id, service: f.service })),
      method: ctx.method.name,
      model: ctx.model.id,
      maxAttempts: ctx.maxAttempts,
      report: ctx.cfg.report,
      tier: faults.some((f) => f.spec.tier === "expert") ? "expert" : "reference",
      startedAt: new Date().toISOString(),
      phases: {},
      errors: [],
      status: "error",
    },
    injections: [],
  };
  try {
    await measure(c);
  } catch (e) {
    ended(c.facts, e, ctx.signal);
  }
  await cleanUp(c);
  const rec = caseRecord(c.facts);
  writeTrajectory(ctx.caseDir, rec);
  return rec;
}

/** From a healthy namespace to the case's score; each fact goes into the record's facts as it is learned. */
async function measure(c: Running): Promise<void> {
  const { ctx, roles, faults, facts } = c;
  const step = <T>(key: keyof Phases, fn: () => Promise<T>) => timed(facts.phases, key, fn);
  ctx.onPhase("prepare");
  const baseline = await roles.prepare.prepare(ctx, faults);

  ctx.onPhase("inject");
  c.injections = await step("inject", () => roles.injector.inject(ctx, faults));
  ctx.onPhase("confirm");
  facts.injection = await step("confirm", () => roles.confirmer.confirm(ctx, faults, c.injections, baseline));
  if (!facts.injection.faultShown) {
    facts.status = "injection-failure";
    return;
  }
  // when the fault was seen: the symptom level's alert fires from then
  const sinceMs = await ctx.time.clusterNow();
  if (ctx.cfg.noise)
    facts.noise = await step("noise", () => caseNoise(ctx, faults, facts.index, facts.trial));

  ctx.onPhase("method");
  const identity = await step("identity", () => roles.identity.issue(ctx));
  c.identity = identity;
  const report = await roles.diagnoser.diagnose(ctx, faults, { baseline, sinceMs });
  const scorer = roles.scorer.scorer(ctx, { faults, baseline, injections: c.injections });
  const times = emptyTimes();
  const solved = await step("method", () => solve(ctx, report, scorer, identity, times));
  facts.solved = solved;
  // the diagnosis the agent stated, if it did, scored by the service it named
  facts.diagnosis = statedDiagnosis(
    solved.conversation,
    faults.map((f) => f.service),
  );
  // what the agent changed, from the API proxy's log of its requests, against the faults' objects
  facts.localization = scoreLocalization(changesIn(join(ctx.caseDir, "api-audit.jsonl")), c.injections);
  writeConversation(ctx.caseDir, report, solved);
  const failed = runFailure(solved);
  if (failed) {
    facts.errors.push(`method: ${failed.message}`);
    facts.status = ctx.signal.aborted ? "interrupted" : "error";
    facts.errorCause = ctx.signal.aborted ? "interrupted" : failed.reason;
    return;
  }

  ctx.onPhase("settle and verify");
  const start = await ctx.time.clusterNow();
  facts.score = await step("verify", () => scorer.score(ctx.signal));
  facts.remediation = { ...times, finalMs: (await ctx.time.clusterNow()) - start };
  facts.status = facts.score.pass ? "success" : "failure";
}

/** A step threw: Ctrl-C's interruption, or an error of the run with the error's reason. */
function ended(facts: CaseFacts, e: unknown, signal: AbortSignal): void {
  if (signal.aborted) {
    facts.status = "interrupted";
    facts.errorCause = "interrupted";
    return;
  }
  facts.status = "error";
  facts.errorCause = reasonOf(e);
  facts.errors.push(errorLine(e));
}

/** Always, after Ctrl-C too (cleanup does not listen to the run's signal): restore, then drop the identity. */
async function cleanUp(c: Running): Promise<void> {
  const { ctx, roles, faults, facts } = c;
  ctx.onPhase("restore");
  const identity = c.identity;
  await timed(facts.phases, "restore", async () => {
    try {
      // the noise's ConfigMap edit first (it never throws), so that it does not carry into later cases
      if (ctx.cfg.noise) await undoCaseNoise(ctx, faults, facts.index, facts.trial);
      await roles.restorer.restore(ctx, faults, c.injections);
    } finally {
      if (identity) await timed(facts.phases, "identity", () => identity.remove());
    }
  }).catch((e) => {
    facts.errors.push(`cleanup: ${isMicroRemedError(e) ? e.oneLine() : (e as Error).message}`);
    // a case that left its namespace broken did not succeed, whatever its checks said
    if (facts.status === "success") facts.status = "error";
    facts.errorCause ??= "cluster";
  });
}

function writeConversation(caseDir: string, report: DiagnosisReport, solved: MethodResult): void {
  writeFileSync(
    join(caseDir, "conversation.json"),
    `${JSON.stringify({ report, conversation: solved.conversation, attempts: solved.attempts }, null, 2)}\n`,
  );
}
