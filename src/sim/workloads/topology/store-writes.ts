// A page whose call writes through its callee to a store that refuses writes (store-clients.ts):
// the callee answers that call with an error (cartservice's FailedPrecondition), though its reads
// work, so the frontend's add-to-cart fails while its cart page shows.
import { type ServiceModel, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { spotsOf } from "./calls.js";
import type { SvcState } from "./service-state.js";
import { routeWrites, storeFull } from "./store-clients.js";

/** Whether `caller`'s page `method path` writes through `callee` to a store that refuses it now. */
export function writeRefusedVia(
  ctx: SimContext,
  services: Map<string, SvcState>,
  caller: ServiceModel,
  callee: string,
  method: string,
  path: string,
  rnd: () => number,
): boolean {
  if (!routeWrites(caller, callee, method, path)) return false;
  const st = services.get(callee);
  const pods = st?.serving ?? [];
  if (!st || !pods.length) return false;
  // the callee pod that serves this call, and where its store connection goes
  const pod = pods[Math.floor(rnd() * pods.length)];
  for (const e of systemOf(st.model).edges.get(callee) ?? []) {
    if (!e.store) continue;
    for (const s of spotsOf(ctx, services, st.model, pod, e).spots) {
      const there = s.landing && services.get(e.to)?.model;
      if (s.landing && there && storeFull(ctx, e, s.landing.pod, there)) return true;
    }
  }
  return false;
}

/**
 * The share of `callee`'s serving pods whose store refuses writes now (0: writes go through), for
 * the traffic's averages (the log's sampled request); no draw is made.
 */
export function refusedShare(ctx: SimContext, services: Map<string, SvcState>, callee: string): number {
  const st = services.get(callee);
  const pods = st?.serving ?? [];
  if (!st || !pods.length) return 0;
  let refused = 0;
  for (const pod of pods)
    for (const e of systemOf(st.model).edges.get(callee) ?? []) {
      if (!e.store) continue;
      const spots = spotsOf(ctx, services, st.model, pod, e).spots;
      const there = services.get(e.to)?.model;
      if (there && spots.some((s) => s.landing && storeFull(ctx, e, s.landing.pod, there))) {
        refused++;
        break;
      }
    }
  return refused / pods.length;
}
