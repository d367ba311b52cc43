// A page whose call writes through its callee to a store that refuses writes (store-clients.ts):
// the callee answers that call with an error (cartservice's FailedPrecondition), though its reads
// work, so the frontend's add-to-cart fails while its cart page shows.
import { type ServiceModel, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
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
  // the callee pod that serves this call
  return storeRefusesWrites(ctx, services, st, pods[Math.floor(rnd() * pods.length)]);
}

/** Whether a store that `pod` (of the callee `st`) writes to refuses writes now. */
function storeRefusesWrites(
  ctx: SimContext,
  services: Map<string, SvcState>,
  st: SvcState,
  pod: Pod,
): boolean {
  for (const e of systemOf(st.model).edges.get(st.model.key) ?? []) {
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
  return pods.filter((pod) => storeRefusesWrites(ctx, services, st, pod)).length / pods.length;
}
