// `microremed task verify`: a Harbor task's verifier. The clock back at the harness's speed, the
// case scored as a run scores it (settle, each fault's reference check, no collateral damage,
// what users see for the expert tier, then the hold), and Harbor's reward file written:
// reward.json with `reward` 1 or 0, and `diagnosis` 1 or 0 when the agent stated one in
// diagnosis.json of its working folder (scored by fact: is the service it names a fault's?).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diagnosisArgument } from "../methods/diagnosis.js";
import type { Score } from "../verify/types.js";
import { openHarness } from "./harness.js";
import { readState } from "./state.js";

export interface VerifyOptions {
  kubeconfig: string;
  state: string;
  /** Harbor's /logs/verifier: reward.json and score.json go there. */
  logs: string;
  /** The agent's working folder, where it may leave diagnosis.json. */
  workdir: string;
}

export interface Reward {
  reward: number;
  diagnosis?: number;
}

/** The agent's stated diagnosis, if it left a valid one: {"service": ..., "cause": ...}. */
function stated(workdir: string, services: string[]): { service: string; correct: boolean } | undefined {
  const file = join(workdir, "diagnosis.json");
  if (!existsSync(file)) return undefined;
  const a = diagnosisArgument(readFileSync(file, "utf8"));
  if ("problem" in a) return undefined;
  return { service: a.service, correct: services.some((s) => s.toLowerCase() === a.service.toLowerCase()) };
}

export async function verifyTask(o: VerifyOptions): Promise<{ reward: Reward; score: Score }> {
  const s = readState(o.state);
  const { ctx, roles, faults } = await openHarness(s.case, o.kubeconfig);
  const scorer = roles.scorer.scorer(ctx, { faults, baseline: s.baseline, injections: s.injections });
  const score = await scorer.score();
  const diagnosis = stated(
    o.workdir,
    faults.map((f) => f.target),
  );
  const reward: Reward = {
    reward: score.pass ? 1 : 0,
    ...(diagnosis ? { diagnosis: diagnosis.correct ? 1 : 0 } : {}),
  };
  mkdirSync(o.logs, { recursive: true });
  writeFileSync(join(o.logs, "reward.json"), `${JSON.stringify(reward)}\n`);
  writeFileSync(
    join(o.logs, "score.json"),
    `${JSON.stringify({ case: s.case.name, score, diagnosis }, null, 2)}\n`,
  );
  return { reward, score };
}
