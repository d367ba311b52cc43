// What the stage actions (actions.ts) and facts (facts.ts) see of the kubelet running them: the
// cluster, its stage configuration, the image catalog and cache, the back-offs and the pod
// network. kubelet.ts implements it; the actions and facts take this interface, not the class,
// so they do not import the kubelet that imports them.
import type { SimContext } from "../context/context.js";
import type { PodStagesDoc } from "../stages/load.js";
import type { ImageCatalog } from "../userland/images.js";
import type { Backoff } from "./backoff.js";
import type { PodNetwork } from "./network.js";

export interface KubeletState {
  readonly ctx: SimContext;
  readonly cfg: PodStagesDoc;
  readonly images: ImageCatalog;
  readonly crash: Backoff;
  readonly pull: Backoff;
  readonly net: PodNetwork;
  imageCached(node: string, canonical: string): boolean;
  cacheImage(node: string, canonical: string): void;
  /** The node's memory capacity in bytes. */
  nodeMemory(node: string): number;
}
