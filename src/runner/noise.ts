// The case's background noise (--noise, src/noise): planned from the seed, the case and its
// trial, aimed at workloads and ConfigMaps of the system that the case's faults leave alone,
// made once the fault shows and before the report is written, then waited on until the
// workloads it restarted are Ready again, so the verdict never depends on it.
import { snapshot } from "../envs/health.js";
import { MicroRemedError } from "../errors.js";
import { makeNoise } from "../noise/apply.js";
import { type NoiseEvent, planNoise } from "../noise/plan.js";
import type { CaseContext, Fault } from "./context.js";

export async function caseNoise(
  ctx: CaseContext,
  faults: Fault[],
  index: number,
  trial?: number,
): Promise<NoiseEvent[]> {
  const spared = (name: string | undefined) => !!name && !faults.some((f) => f.service === name);
  const names = (kind: string) =>
    ctx.env.manifests
      .filter((m) => m.kind === kind)
      .map((m) => m.metadata?.name)
      .filter(spared) as string[];
  const key = `${index}#${trial ?? 1}`;
  const planned = planNoise(ctx.cfg.seed, key, names("Deployment"), names("ConfigMap"));
  const made = await makeNoise(
    { client: ctx.client, time: ctx.time, namespace: ctx.namespace, seed: ctx.cfg.seed },
    planned,
    key,
  );
  await untilReady(
    ctx,
    made.filter((e) => e.kind === "pod-restart").map((e) => e.target),
  );
  return made;
}

/** The restarted workloads Ready again (the faults' own stay broken: they are the case). */
async function untilReady(ctx: CaseContext, workloads: string[]): Promise<void> {
  if (!workloads.length) return;
  const until = (await ctx.time.clusterNow()) + ctx.env.readyTimeoutSeconds * 1000;
  for (;;) {
    const s = await snapshot(ctx.client, ctx.namespace);
    const waiting = workloads.filter((w) => !s.find((x) => x.name === w)?.settled);
    if (!waiting.length) return;
    if ((await ctx.time.clusterNow()) >= until)
      throw new MicroRemedError(
        "E_TIMEOUT",
        `the noise's restarted ${waiting.join(", ")} did not become Ready within ${ctx.env.readyTimeoutSeconds} s of cluster time`,
        "check the cluster has room for the system (kubectl describe pods)",
        { reason: "cluster" },
      );
    await ctx.time.sleep(ctx.cfg.waitInterval * 1000, ctx.signal);
  }
}
