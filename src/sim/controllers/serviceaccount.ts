// The ServiceAccount controller (pkg/controller/serviceaccount/serviceaccounts_controller.go):
// every active namespace has a `default` ServiceAccount, and one that is deleted comes back.

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";

const NAME = "serviceaccount";
const DEFAULT = "default";

export function installServiceAccountController(ctx: SimContext): void {
  const { store, registry, runtime } = ctx;
  runtime.register(NAME, (ns) => {
    const nsObj = registry.tryGet(R("Namespace"), undefined, ns);
    if (!nsObj || nsObj.metadata.deletionTimestamp) return;
    if (registry.tryGet(R("ServiceAccount"), ns, DEFAULT)) return;
    registry.create(R("ServiceAccount"), ns, {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: DEFAULT },
    });
  });
  store.subscribe((e) => {
    if (e.rt.kind === "Namespace" && e.type !== "DELETED") runtime.enqueue(NAME, e.object.metadata.name!);
    else if (e.rt.kind === "ServiceAccount" && e.type === "DELETED" && e.object.metadata.name === DEFAULT)
      runtime.enqueue(NAME, e.object.metadata.namespace!);
  });
}
