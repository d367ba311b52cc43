// The node side of the embedded cluster: the default scheduler and the kubelet of every node.
import type { SimContext } from "../context/context.js";
import { installKubelet } from "./kubelet.js";
import { installScheduler } from "./scheduler.js";

export function installNodeAgents(ctx: SimContext): void {
  installScheduler(ctx);
  installKubelet(ctx);
}
