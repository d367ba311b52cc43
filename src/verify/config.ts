// pod-config-error: the CPU check and the memory check both pass (which needs the rollout to
// have finished with sane resources: every target pod Running and Ready).
import { describePods, isReady, pollMeasure, targetPods } from "./pods.js";
import type { Verifier } from "./types.js";
import { usageVerifier } from "./usage.js";

const cpu = usageVerifier("cpu");
const memory = usageVerifier("memory");

export const configVerifier: Verifier = {
  id: "config",
  async verify(ctx) {
    if (ctx.mode === "confirm") {
      // The bad template shows as a pod that never becomes Ready (or restarts) beside the old one.
      return pollMeasure(ctx, ctx.windowMs, async () => {
        const pods = await targetPods(ctx);
        const seen = pods.some(
          (p) => !isReady(p) || (p.status?.containerStatuses ?? []).some((c) => c.restartCount > 0),
        );
        return {
          pass: !seen,
          reason: seen ? `fault visible: ${describePods(pods)}` : `all ${ctx.service} pods Ready`,
          measurements: { pods: describePods(pods) },
        };
      });
    }
    const c = await cpu.verify(ctx);
    const m = c.pass
      ? await memory.verify(ctx)
      : { pass: false, reason: "not measured (the CPU check failed)", measurements: {} };
    return {
      pass: c.pass && m.pass,
      reason: c.pass ? m.reason : c.reason,
      measurements: { cpu: c.measurements, memory: m.measurements },
    };
  },
};
