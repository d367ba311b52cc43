// The case's background noise (--noise, src/noise): planned from the seed, the case and its
// trial, aimed at workloads and ConfigMaps of the system that the case's faults leave alone,
// made once the fault shows and before the report is written, then waited on until the
// workloads it restarted are Ready again. Noise never decides a case: an event that could not be
// made, or a restarted workload that is not Ready again in time, is left out of the record and
// the case goes on; the ConfigMap edit is undone with the case's restore (undoCaseNoise).
import { snapshot } from "../envs/health.js";
import { makeNoise, undoNoise } from "../noise/apply.js";
import { type NoiseEvent, planNoise } from "../noise/plan.js";
import type { CaseContext, Fault } from "./context.js";

/** The case's plan: the same for the same seed, case and trial. */
function planOf(ctx: CaseContext, faults: Fault[], index: number, trial?: number) {
  const names = (kind: string) =>
    ctx.env.manifests
      .filter((m) => m.kind === kind)
      .flatMap((m) => (m.metadata?.name ? [m.metadata.name] : []));
  const key = `${index}#${trial ?? 1}`;
  const avoid = faults.map((f) => f.service);
  return { key, planned: planNoise(ctx.cfg.seed, key, names("Deployment"), names("ConfigMap"), avoid) };
}

export async function caseNoise(
  ctx: CaseContext,
  faults: Fault[],
  index: number,
  trial?: number,
): Promise<NoiseEvent[]> {
  const { key, planned } = planOf(ctx, faults, index, trial);
  const made = await makeNoise(
    { client: ctx.client, time: ctx.time, namespace: ctx.namespace, seed: ctx.cfg.seed },
    planned,
    key,
  );
  const late = await untilReady(
    ctx,
    made.filter((e) => e.kind === "pod-restart").map((e) => e.target),
  );
  return made.filter((e) => !(e.kind === "pod-restart" && late.includes(e.target)));
}

/** The noise's ConfigMap edits undone, for every edit the plan had (made or not: undoing is idempotent). */
export async function undoCaseNoise(ctx: CaseContext, faults: Fault[], index: number, trial?: number) {
  await undoNoise(
    { client: ctx.client, namespace: ctx.namespace },
    planOf(ctx, faults, index, trial).planned,
  );
}

/**
 * The restarted workloads Ready again (the faults' own stay broken: they are the case); those
 * still not Ready when the system's ready timeout runs out, which the case goes on without.
 */
async function untilReady(ctx: CaseContext, workloads: string[]): Promise<string[]> {
  if (!workloads.length) return [];
  const until = (await ctx.time.clusterNow()) + ctx.env.readyTimeoutSeconds * 1000;
  for (;;) {
    const s = await snapshot(ctx.client, ctx.namespace);
    const waiting = workloads.filter((w) => !s.find((x) => x.name === w)?.settled);
    if (!waiting.length || (await ctx.time.clusterNow()) >= until) return waiting;
    await ctx.time.sleep(ctx.cfg.waitInterval * 1000, ctx.signal);
  }
}
