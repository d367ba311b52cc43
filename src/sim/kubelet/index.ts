// The node side of the embedded cluster: the default scheduler and the kubelet of every node.
import type { SimContext } from "../context/context.js";
import { installKubelet } from "./kubelet.js";
import { installLivedIn, type LivedInOptions } from "./lived-in.js";
import { installScheduler } from "./scheduler.js";

export type { LivedInOptions } from "./lived-in.js";

/** `livedIn`: the namespaces whose deployed state looks as if restored from a long-running cluster. */
export function installNodeAgents(ctx: SimContext, livedIn?: LivedInOptions): void {
  installScheduler(ctx);
  const kubelet = installKubelet(ctx);
  if (livedIn) installLivedIn(ctx, kubelet, livedIn);
}
