// The shape of the checks of faults that leave their target rolled out and Ready (calls,
// throttle, store): the fault is read where it shows (an edge's requests, the cgroup's
// throttling, the store's answer), and in final mode the target must also be back to serving as
// deployed (rollout.ts), so that a "fix" that breaks the target differently does not pass.
import type { VerifierId } from "../faults/catalog.js";
import { pollMeasure } from "./pods.js";
import { rolloutVerifier } from "./rollout.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

/**
 * confirm: poll the reading until it conclusively fails (the fault shows), within the injection
 * window. final: wait for the rollout (up to readyMs), then poll the reading until it passes
 * (up to usageMs); with both at 0 (the hold's readings) each is read once.
 */
export function guardedVerifier(id: VerifierId, read: (ctx: VerifyContext) => Promise<Verdict>): Verifier {
  return {
    id,
    async verify(ctx) {
      if (ctx.mode === "confirm") return pollMeasure(ctx, ctx.windowMs, () => read(ctx));
      const rollout = await rolloutVerifier.verify(ctx);
      if (!rollout.pass) return { ...rollout, measurements: { rollout: rollout.measurements } };
      const v = await pollMeasure(ctx, ctx.timeouts.usageMs, () => read(ctx));
      return { ...v, measurements: { rollout: rollout.measurements, ...v.measurements } };
    },
  };
}
