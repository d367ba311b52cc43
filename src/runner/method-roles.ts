// The harness's roles around the method (context.ts declares each): the agent's identity
// (src/identity), the diagnosis report at the run's level (src/diagnosis), the scorer the method
// and the runner score with (src/verify), and what is read off the method's work afterwards: the
// diagnosis it stated (src/methods/diagnosis.ts) and what it changed (src/localization). Each is
// built with the settings of the run it reads.

import { join } from "node:path";
import { buildDiagnosis } from "../diagnosis/build.js";
import type { SymptomMeasurement } from "../diagnosis/symptom.js";
import { snapshot } from "../envs/health.js";
import type { VerifierId } from "../faults/catalog.js";
import { causeRef } from "../faults/injection.js";
import { createAgentIdentity } from "../identity/agent.js";
import { changesIn } from "../localization/audit.js";
import { scoreLocalization } from "../localization/score.js";
import { statedDiagnosis } from "../methods/diagnosis.js";
import { verifierOf } from "../verify/registry.js";
import { CaseScorer, namespaceHealth } from "../verify/scorer.js";
import type { Verifier } from "../verify/types.js";
import { measureUser } from "../verify/user.js";
import type { RunConfig } from "./config.js";
import {
  type CaseScope,
  type Diagnoser,
  type Fault,
  faultServices,
  type IdentityIssuer,
  type Localizer,
  type ScorerMaker,
  type Seen,
  type StatementReader,
  scenarioOf,
} from "./context.js";
import { faultsEndAt, judgedByUsers, userCheckOf } from "./roles.js";

/** How long the expert tier's fixes must hold, unless --hold says otherwise (cluster seconds). */
export const EXPERT_HOLD_SECONDS = 60;

/** A ServiceAccount confined to the case's namespace, with the access the run grants (--agent-access). */
export const namespaceIdentity = (cfg: Pick<RunConfig, "agentAccess">): IdentityIssuer => ({
  issue: (ctx) => createAgentIdentity(ctx.client, ctx.namespace, cfg.agentAccess),
});

/**
 * The symptom level's measurement: what users see now against the baseline (from a pod the
 * faults leave alone, as the checks request), and the namespace's health.
 */
async function symptomNow(ctx: CaseScope, faults: Fault[], seen: Seen): Promise<SymptomMeasurement> {
  const check = ctx.env.userCheck;
  const now = check ? await measureUser(ctx, check, faultServices(faults)) : undefined;
  return {
    ...(check ? { check, now } : {}),
    ...(seen.baseline.user ? { baseline: seen.baseline.user } : {}),
    health: await snapshot(ctx.client, ctx.namespace),
    sinceMs: seen.sinceMs,
  };
}

/** The report at the run's level (--report), with the run's inventory; the symptom level measures first. */
export const levelDiagnoser = (cfg: Pick<RunConfig, "report" | "inventory">): Diagnoser => ({
  diagnose: async (ctx, faults, seen) =>
    buildDiagnosis(
      ctx.client,
      ctx.env.name,
      ctx.namespace,
      faults.map((f) => ({ failure: f.failure, target: f.target })),
      cfg.inventory,
      {
        level: cfg.report,
        ...(cfg.report === "symptom" ? { symptom: await symptomNow(ctx, faults, seen) } : {}),
      },
    ),
});

/** How long a case's fixes must hold by default: an incident's own hold, the expert tier's, or none. */
function holdOf(faults: Fault[]): number {
  const incident = faults.flatMap((f) => (f.failure.incident ? [f.failure.incident.hold] : []));
  if (incident.length) return Math.max(...incident);
  return judgedByUsers(faults) ? EXPERT_HOLD_SECONDS : 0;
}

/** A fault's own checks: its type's on its target, or an incident's: each cause's and the story's own (its users' demand) on its service. */
function checksOf(f: Fault): { check: Verifier; service: string }[] {
  const scenario = scenarioOf(f);
  if (!scenario) return [{ check: verifierOf(f.failure, f.vars), service: f.target }];
  return [...scenario.causes.flatMap((c) => (c.check ? [c.check] : [])), ...scenario.checks].map((c) => ({
    check: verifierOf({ verifier: c.verifier as VerifierId }, c.vars),
    service: c.service,
  }));
}

/** Each fault's own check, what users see for a case judged by it, and no collateral damage, held for --hold. */
export const caseScorer = (cfg: Pick<RunConfig, "hold">): ScorerMaker => ({
  scorer: (ctx, known) => {
    const user = userCheckOf(ctx, known.faults, known.baseline.user);
    const hold = cfg.hold ?? holdOf(known.faults);
    return new CaseScorer(ctx, {
      faults: known.faults.flatMap(checksOf),
      health: namespaceHealth(known.baseline.health),
      ...(user ? { user } : {}),
      holdMs: hold * 1000,
      faultsEndAt: faultsEndAt(known.injections),
    });
  },
});

/** The last submit_diagnosis of the conversation, scored by the service it names, or an incident's by its causes. */
export const statementReader: StatementReader = {
  read: (conversation, faults) =>
    statedDiagnosis(
      conversation,
      faults.map((f) => f.target),
      faults.flatMap((f) => scenarioOf(f)?.causes.map(causeRef) ?? []),
    ),
};

/** The API proxy's log of the agent's requests (api-audit.jsonl in the case folder) against the faults' objects. */
export const auditLocalizer: Localizer = {
  localize: (caseDir, injections) =>
    scoreLocalization(changesIn(join(caseDir, "api-audit.jsonl")), injections),
};
