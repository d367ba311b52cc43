// The namespace-health check MicroRemed adds to the reference: after the remediation, every
// workload that was healthy before the fault is still there, not scaled down, and all Ready.

import { allSettled, collateralDamage, type HealthSnapshot, snapshot } from "../envs/health.js";
import type { Pod } from "../kube/objects.js";
import { waitFor } from "../kube/wait.js";
import type { Verdict, VerifyContext } from "./types.js";

export async function verifyNamespaceHealth(
  ctx: VerifyContext,
  baseline: HealthSnapshot,
  wait = true,
): Promise<Verdict> {
  const r = await waitFor({
    client: ctx.client,
    time: ctx.time,
    signal: ctx.signal,
    timeoutMs: wait ? ctx.timeouts.readyMs : 0,
    pollMs: 10_000,
    watch: [
      { apiVersion: "apps/v1", kind: "Deployment", namespace: ctx.namespace },
      { apiVersion: "apps/v1", kind: "StatefulSet", namespace: ctx.namespace },
    ],
    check: async () => {
      const s = await snapshot(ctx.client, ctx.namespace);
      return collateralDamage(baseline, s).length === 0 && allSettled(s) ? s : undefined;
    },
  });
  const now = r.ok ? r.value : await snapshot(ctx.client, ctx.namespace);
  const problems = collateralDamage(baseline, now);
  return {
    pass: problems.length === 0,
    reason:
      problems.join("; ") ||
      `all ${baseline.length} workloads of ${ctx.namespace} are present, not scaled down and Ready`,
    measurements: { workloads: now.map((w) => `${w.kind}/${w.name} ${w.ready}/${w.replicas}`) },
  };
}

/** Each container's restart count in the namespace, by `pod/container` (init containers too). */
export async function restartCounts(ctx: VerifyContext): Promise<Map<string, number>> {
  const pods = await ctx.client.list<Pod>("v1", "Pod", ctx.namespace);
  return new Map(
    pods.flatMap((p) =>
      [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].map(
        (c) => [`${p.metadata.name}/${c.name}`, c.restartCount ?? 0] as const,
      ),
    ),
  );
}
