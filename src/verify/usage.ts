// The reference's usage checks: after the target pods are Running+Ready, every non-sidecar
// container's CPU (or memory) usage from the metrics API is below 50% of its limit.

import type { Pod } from "../kube/objects.js";
import { bytes, milliCpu } from "../util/quantity.js";
import { isReady, notReadyVerdict, pollMeasure, SIDECAR, targetPods, waitTargetsReady } from "./pods.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

export type UsageResource = "cpu" | "memory";

interface PodMetrics {
  metadata: { name: string };
  containers: { name: string; usage: { cpu: string; memory: string } }[];
}

export async function podMetrics(ctx: VerifyContext): Promise<Map<string, PodMetrics>> {
  try {
    const list = await ctx.client.request<{ items: PodMetrics[] }>(
      "GET",
      `/apis/metrics.k8s.io/v1beta1/namespaces/${ctx.namespace}/pods`,
      { query: { labelSelector: `app=${ctx.service}` } },
    );
    return new Map(list.items.map((m) => [m.metadata.name, m]));
  } catch {
    return new Map();
  }
}

const amount = (r: UsageResource, q: string | undefined) => (r === "cpu" ? milliCpu(q) : bytes(q));
const unit = (r: UsageResource, n: number) => (r === "cpu" ? `${n}m` : `${Math.round(n / 1048576)}Mi`);

/** One look at the usage of the target pods' containers against their limits. */
export async function measureUsage(ctx: VerifyContext, r: UsageResource, pods?: Pod[]): Promise<Verdict> {
  const ps = pods ?? (await targetPods(ctx));
  const metrics = await podMetrics(ctx);
  const rows: Record<string, unknown>[] = [];
  const problems: string[] = [];
  let missing = 0;
  if (ps.length === 0) problems.push(`no pods of ${ctx.service}`);
  for (const p of ps) {
    const m = metrics.get(p.metadata.name!);
    if (!m) {
      problems.push(`no metrics for ${p.metadata.name} yet`);
      missing++;
      continue;
    }
    for (const c of p.spec?.containers ?? []) {
      if (c.name === SIDECAR) continue;
      const limit = amount(r, c.resources?.limits?.[r]);
      const used = amount(r, m.containers.find((x) => x.name === c.name)?.usage?.[r]);
      const ratio = limit > 0 ? used / limit : 0;
      rows.push({
        pod: p.metadata.name,
        container: c.name,
        usage: unit(r, used),
        limit: limit ? unit(r, limit) : "none",
        ratio: Math.round(ratio * 1000) / 1000,
      });
      if (limit > 0 && ratio >= 0.5)
        problems.push(
          `${p.metadata.name}/${c.name} uses ${unit(r, used)} of its ${unit(r, limit)} ${r} limit (${Math.round(ratio * 100)}%)`,
        );
    }
  }
  const over = problems.length - missing - (ps.length === 0 ? 1 : 0);
  return {
    pass: problems.length === 0,
    reason: problems.length
      ? problems.join("; ")
      : `${r} usage of every ${ctx.service} container is below 50% of its limit`,
    measurements: { [r]: rows },
    inconclusive: problems.length > 0 && over === 0,
  };
}

export function usageVerifier(r: UsageResource): Verifier {
  return {
    id: r,
    async verify(ctx) {
      if (ctx.mode === "confirm") {
        // the fault is seen when usage crosses the line (a pod without metrics yet says nothing)
        return pollMeasure(ctx, ctx.windowMs, () => measureUsage(ctx, r));
      }
      const pods = await waitTargetsReady(ctx);
      if (!pods) return notReadyVerdict(ctx);
      return pollMeasure(ctx, ctx.timeouts.usageMs, () => measureUsage(ctx, r, pods.filter(isReady)));
    },
  };
}
