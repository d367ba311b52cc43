// ResourceQuota status, as kube-controller-manager's resourcequota controller writes it
// (pkg/controller/resourcequota): status.hard is spec.hard, status.used what the namespace uses
// of each constrained resource, measured by the same evaluators the admission plugin charges with
// (../api/admission/quota-usage.ts: pkg/quota/v1/evaluator/core). Admission charges an object as
// it is created; this recount catches up with deletions, terminal pods and changed quotas.
import { isDeepStrictEqual } from "node:util";
import { formatQty } from "../api/admission/quantity.js";
import { namespaceUsage, type ResourceQuota } from "../api/admission/quota-usage.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { splitKey } from "../core/meta.js";
import type { Pod } from "../core/objects.js";

const NAME = "resourcequota";

export function installResourceQuotaController(ctx: SimContext) {
  const { store, registry, runtime, clock } = ctx;

  runtime.register(NAME, (key) => {
    const [ns, name] = splitKey(key);
    const q = registry.tryGet(R("ResourceQuota"), ns, name) as ResourceQuota | undefined;
    if (!q || q.metadata.deletionTimestamp) return;
    const hard = { ...(q.spec?.hard ?? {}) };
    // shown time, as the pods' deletion timestamps
    const now = clock.toWall(clock.now());
    const usage = namespaceUsage(store, ns!, q, Object.keys(hard), now);
    const status = {
      hard,
      used: Object.fromEntries([...usage].map(([r, v]) => [r, formatQty(v)])),
    };
    // a terminating pod stops being charged when its grace period has passed again (QuotaV1Pod)
    let soonest = Number.POSITIVE_INFINITY;
    for (const p of store.list(R("Pod"), ns) as Pod[]) {
      const m = p.metadata;
      if (!m.deletionTimestamp || m.deletionGracePeriodSeconds === undefined) continue;
      const until = Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000 - now;
      if (until >= 0) soonest = Math.min(soonest, until);
    }
    if (soonest !== Number.POSITIVE_INFINITY) runtime.enqueueAfter(NAME, key, soonest + 1000);
    if (isDeepStrictEqual(status, q.status)) return;
    registry.update(R("ResourceQuota"), ns, name, { ...q, status }, { subresource: "status", force: true });
  });

  store.subscribe((e) => {
    const ns = e.object.metadata.namespace;
    if (!ns) return;
    if (e.rt.kind === "ResourceQuota" && e.type !== "DELETED") {
      runtime.enqueue(NAME, `${ns}/${e.object.metadata.name}`);
      return;
    }
    // any object in a namespace with quotas may change what they count
    if (e.rt.kind === "Event") return;
    for (const q of store.list(R("ResourceQuota"), ns)) runtime.enqueue(NAME, `${ns}/${q.metadata.name}`);
  });
}
