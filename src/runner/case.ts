// One case, as a pipeline of roles (docs/architecture.md):
//   prepare (a healthy namespace) → inject → confirm → noise → identity → diagnose → solve (the
//   method, handed the executor, the scorer and the prober) → the stated diagnosis and the
//   localization read off its work → settle + score → restore
// and always, whatever happens (error, timeout, Ctrl-C): undo the noise, stop the chaos, restore
// the targets, delete the agent's identity. The roles come in with the case's setup (context.ts
// declares them, setup.ts builds the defaults); each is handed the case's scope and what the
// case has learned so far. What the case learns is kept as facts, and the record is made of them
// in one place (runlog/records.ts). A case ends as success, failure (the answer did not
// remediate, or the cluster refused it), injection failure (the fault never showed) or error
// (provider, tool or cluster: left out of the success rate).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DiagnosisReport } from "../diagnosis/report.js";
import { snapshot } from "../envs/health.js";
import { errorLine, isMicroRemedError, reasonOf } from "../errors.js";
import { failure as failureSpec } from "../faults/catalog.js";
import type { Injection } from "../faults/inject.js";
import { movedBy } from "../faults/injection.js";
import type { AgentIdentity } from "../identity/agent.js";
import type { MethodResult } from "../methods/types.js";
import { type CaseFacts, type CaseRecord, caseRecord, type Phases } from "../runlog/records.js";
import { writeTrajectory } from "../trajectory/index.js";
import { type Baseline, type CaseNoise, type CaseSetup, type Fault, tierOf } from "./context.js";
import type { PlannedCase } from "./experiments.js";
import { alertSince } from "./since.js";
import { runFailure } from "./solve.js";
import { emptyTimes } from "./timing.js";

/** A case as it runs: its setup, its faults, what it learned, and what cleanup must undo. */
interface CaseRun extends CaseSetup {
  faults: Fault[];
  facts: CaseFacts;
  injections: Injection[];
  noise?: CaseNoise;
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

export async function runCase(planned: PlannedCase, setup: CaseSetup, trial?: number): Promise<CaseRecord> {
  const faults = planned.faults.map(
    (f): Fault => ({
      failure: failureSpec(f.failure),
      target: f.target,
      params: f.params,
      vars: f.vars,
    }),
  );
  const run: CaseRun = {
    ...setup,
    faults,
    facts: {
      index: planned.index,
      trial,
      faults: faults.map((f) => ({ failure: f.failure.id, target: f.target })),
      ...setup.labels,
      tier: tierOf(faults),
      startedAt: new Date().toISOString(),
      phases: {},
      errors: [],
      status: "error",
    },
    injections: [],
  };
  try {
    await runPipeline(run);
  } catch (e) {
    stopped(run, errorLine(e), reasonOf(e));
  }
  await cleanUp(run);
  const rec = caseRecord(run.facts);
  writeTrajectory(run.caseDir, rec);
  return rec;
}

/** From a healthy namespace to the case's score; each fact goes into the record's facts as it is learned. */
async function runPipeline(run: CaseRun): Promise<void> {
  const { scope, roles, faults, facts, onPhase } = run;
  const step = <T>(key: keyof Phases, fn: () => Promise<T>) => timed(facts.phases, key, fn);
  // where no one reads (docs/clock.md): the case is shown its own lead, not the run's
  if (run.caseLead !== undefined) await scope.time.showLead(run.caseLead);
  onPhase("prepare");
  const baseline = await roles.preparer.prepare(scope, faults);

  onPhase("inject");
  run.injections = await step("inject", () => roles.injector.inject(scope, faults));
  await withMadeWorkloads(run, baseline);
  onPhase("confirm");
  facts.injection = await step("confirm", () =>
    roles.confirmer.confirm(scope, faults, run.injections, baseline),
  );
  if (!facts.injection.faultShown) {
    facts.status = "injection-failure";
    return;
  }
  // where no one reads yet, the rest of the case is shown its own lead: what was noted of shown
  // time so far moves with it (docs/clock.md)
  if (run.methodLead !== undefined) {
    const moved = await scope.time.showLead(run.methodLead);
    run.injections = run.injections.map((i) => movedBy(i, moved));
  }
  // when the fault was seen, or an incident's onset: the symptom level's alert fires from then
  const sinceMs = await alertSince(scope.time, run.injections);
  const noise = roles.noise?.plan(scope, faults, `${facts.index}#${facts.trial ?? 1}`);
  run.noise = noise;
  if (noise) facts.noise = await step("noise", () => noise.make());

  onPhase("method");
  const identity = await step("identity", () => roles.identity.issue(scope));
  run.identity = identity;
  const report = await roles.diagnoser.diagnose(scope, faults, { baseline, sinceMs });
  const scorer = roles.scorer.scorer(scope, { faults, baseline, injections: run.injections });
  const times = emptyTimes();
  const solved = await step("method", () => roles.solver.solve(scope, report, scorer, identity, times));
  facts.solved = solved;
  facts.diagnosis = roles.statement.read(solved.conversation, faults);
  facts.localization = roles.localizer.localize(run.caseDir, run.injections);
  writeConversation(run.caseDir, report, solved);
  const failed = runFailure(solved);
  if (failed) return stopped(run, `method: ${failed.message}`, failed.reason);

  onPhase("settle and verify");
  const start = await scope.time.clusterNow();
  facts.score = await step("verify", () => scorer.score(scope.signal));
  facts.remediation = { ...times, finalMs: (await scope.time.clusterNow()) - start };
  facts.status = facts.score.pass ? "success" : "failure";
}

/**
 * The workloads an incident's steps made (a config agent of the story) belong to the namespace
 * from then on: its health baseline takes them as they are now, so that scaling one away is
 * collateral damage like scaling away a workload of the system.
 */
async function withMadeWorkloads(run: CaseRun, baseline: Baseline): Promise<void> {
  const made = new Set(
    run.injections.flatMap((i) =>
      (i.touched ?? [])
        .filter((t) => t.action === "created" && (t.kind === "Deployment" || t.kind === "StatefulSet"))
        .map((t) => `${t.kind}/${t.name}`),
    ),
  );
  if (made.size === 0) return;
  const now = await snapshot(run.scope.client, run.scope.namespace);
  baseline.health = [...baseline.health, ...now.filter((w) => made.has(`${w.kind}/${w.name}`))];
}

/**
 * The case stopped before its score: interrupted when Ctrl-C was pressed (what failed then is
 * Ctrl-C's doing), else an error of the run, with its line and reason.
 */
function stopped(run: CaseRun, line: string, reason: CaseFacts["errorCause"]): void {
  const { facts } = run;
  if (run.scope.signal.aborted) {
    facts.status = "interrupted";
    facts.errorCause = "interrupted";
    return;
  }
  facts.status = "error";
  facts.errorCause = reason;
  facts.errors.push(line);
}

/** Always, after Ctrl-C too (cleanup does not listen to the run's signal): restore, then drop the identity. */
async function cleanUp(run: CaseRun): Promise<void> {
  const { scope, roles, faults, facts } = run;
  run.onPhase("restore");
  const identity = run.identity;
  await timed(facts.phases, "restore", async () => {
    try {
      // the noise's ConfigMap edit first (it never throws), so that it does not carry into later cases
      await run.noise?.undo();
      await roles.restorer.restore(scope, faults, run.injections);
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
