// The case's background noise (--noise, src/noise): planned from the seed, the case and its
// trial, aimed at workloads and ConfigMaps of the system that the case's faults leave alone,
// made once the fault shows and before the report is written, then waited on until the
// workloads it restarted are Ready again. Noise never decides a case: an event that could not be
// made, or a restarted workload that is not Ready again in time, is left out of the record and
// the case goes on; the ConfigMap edit is undone with the case's restore.
import { snapshot } from "../envs/health.js";
import { makeNoise, undoNoise } from "../noise/apply.js";
import { planNoise } from "../noise/plan.js";
import type { RunConfig } from "./config.js";
import { type CaseNoise, type CaseScope, faultServices, type NoisePlanner, tierOf } from "./context.js";

/** The noise of a case: the same plan for the same seed and key (the case and its trial). */
export const seededNoise = (
  cfg: Pick<RunConfig, "seed">,
): { plan: (...a: Parameters<NoisePlanner["plan"]>) => CaseNoise } => ({
  plan(scope, faults, key) {
    // an incident's noise stays off its causes as off its alert: noise is never the case
    const avoid = faultServices(faults);
    const names = (kind: string) =>
      scope.env.manifests
        .filter((m) => m.kind === kind)
        .flatMap((m) => (m.metadata?.name ? [m.metadata.name] : []));
    const planned = planNoise(cfg.seed, key, names("Deployment"), names("ConfigMap"), avoid);
    return {
      async make() {
        const made = await makeNoise(
          { client: scope.client, time: scope.time, namespace: scope.namespace, seed: cfg.seed },
          planned,
          key,
        );
        const late = await untilReady(
          scope,
          made.filter((e) => e.kind === "pod-restart").map((e) => e.target),
        );
        return made.filter((e) => !(e.kind === "pod-restart" && late.includes(e.target)));
      },
      undo: () => undoNoise({ client: scope.client, namespace: scope.namespace }, planned),
    };
  },
});

/**
 * The restarted workloads Ready again (the faults' own stay broken: they are the case); those
 * still not Ready when the system's ready timeout runs out, which the case goes on without.
 */
async function untilReady(scope: CaseScope, workloads: string[]): Promise<string[]> {
  if (!workloads.length) return [];
  const until = (await scope.time.clusterNow()) + scope.env.readyTimeoutSeconds * 1000;
  for (;;) {
    const s = await snapshot(scope.client, scope.namespace);
    const waiting = workloads.filter((w) => !s.find((x) => x.name === w)?.settled);
    if (!waiting.length || (await scope.time.clusterNow()) >= until) return waiting;
    await scope.time.sleep(scope.waitInterval * 1000, scope.signal);
  }
}

/**
 * The noise of a run: every case's with --noise; without it, an incident's only (the incident
 * tier has noise on by default: its red herrings sit beside the noise's).
 */
export const runNoise = (cfg: Pick<RunConfig, "seed" | "noise">): NoisePlanner => {
  const seeded = seededNoise(cfg);
  return {
    plan: (scope, faults, key) =>
      cfg.noise || tierOf(faults) === "incident" ? seeded.plan(scope, faults, key) : undefined,
  };
};
