// A verifier that reads one verdict and re-reads it as the cluster changes: in confirm mode it
// returns as soon as a reading fails (the fault shows), in final mode it waits up to readyMs for
// a reading that passes. The expert tier's rollout and endpoints checks are this with their own
// reading and the objects whose changes they watch.

import type { VerifierId } from "../faults/catalog.js";
import { type WatchTarget, waitFor } from "../kube/wait.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

export function watchedVerifier(
  id: VerifierId,
  read: (ctx: VerifyContext) => Promise<Verdict>,
  watch: (ctx: VerifyContext) => WatchTarget[],
): Verifier {
  return {
    id,
    async verify(ctx) {
      const wantPass = ctx.mode === "final";
      let last: Verdict | undefined;
      const r = await waitFor({
        client: ctx.client,
        time: ctx.time,
        signal: ctx.signal,
        timeoutMs: wantPass ? ctx.timeouts.readyMs : ctx.windowMs,
        pollMs: 10_000,
        watch: watch(ctx),
        check: async () => {
          last = await read(ctx);
          return last.pass === wantPass ? last : undefined;
        },
      });
      return r.ok ? r.value : (last ?? (await read(ctx)));
    },
  };
}
