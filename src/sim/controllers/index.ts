// Every controller of the embedded cluster, installed in one place.
import type { SimContext } from "./context.js";
import { installEndpointsController } from "./endpoints.js";
import { installGarbageCollector } from "./gc.js";
import { installNamespaceController } from "./namespace.js";

export function installControllers(ctx: SimContext): void {
  installNamespaceController(ctx);
  installGarbageCollector(ctx);
  installEndpointsController(ctx);
}
