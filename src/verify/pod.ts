// pod-fail: all target pods Running+Ready, and the metrics API reports each of them.
import { describePods, isReady, notReadyVerdict, pollMeasure, targetPods, waitTargetsReady } from "./pods.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";
import { podMetrics } from "./usage.js";

async function measure(ctx: VerifyContext): Promise<Verdict> {
  const pods = await targetPods(ctx);
  const metrics = await podMetrics(ctx);
  const notReady = pods.filter((p) => !isReady(p));
  const noMetrics = pods.filter((p) => !metrics.has(p.metadata.name!));
  const pass = pods.length > 0 && notReady.length === 0 && noMetrics.length === 0;
  return {
    pass,
    reason: pass
      ? `all ${pods.length} ${ctx.service} pods are Running, Ready and reported by the metrics API`
      : notReady.length || pods.length === 0
        ? `${ctx.service} pods not all Running and Ready: ${describePods(pods)}`
        : `no metrics for ${noMetrics.map((p) => p.metadata.name).join(", ")}`,
    measurements: { pods: describePods(pods), withMetrics: [...metrics.keys()] },
  };
}

export const podVerifier: Verifier = {
  id: "pod",
  async verify(ctx) {
    if (ctx.mode === "confirm") {
      return pollMeasure(ctx, ctx.windowMs, async () => {
        const pods = await targetPods(ctx);
        const seen = pods.length === 0 || pods.some((p) => !isReady(p));
        return {
          pass: !seen,
          reason: seen ? `fault visible: ${describePods(pods)}` : `all ${ctx.service} pods Ready`,
          measurements: { pods: describePods(pods) },
        };
      });
    }
    if (!(await waitTargetsReady(ctx))) return notReadyVerdict(ctx);
    return pollMeasure(ctx, ctx.timeouts.usageMs, () => measure(ctx));
  },
};
