// ResourceQuota status, as kube-controller-manager's resourcequota controller writes it
// (pkg/controller/resourcequota): status.hard is spec.hard, status.used what the namespace uses
// of each constrained resource, by the core evaluators (pkg/quota/v1/evaluator/core): the pods
// that have not finished and the sum of their containers' requests and limits; object counts
// (services, configmaps, secrets, ..., count/<resource>[.<group>]). Admission does not enforce
// the quota here yet.
import { isDeepStrictEqual } from "node:util";
import { parseQuantity } from "../../util/quantity.js";
import { R, resourceByPath } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { splitKey } from "../core/meta.js";
import type { Container, Pod } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const NAME = "resourcequota";

interface ResourceQuota extends KObject {
  spec?: { hard?: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

const COUNTED: Record<string, string> = {
  services: "services",
  configmaps: "configmaps",
  secrets: "secrets",
  persistentvolumeclaims: "persistentvolumeclaims",
  replicationcontrollers: "replicationcontrollers",
  resourcequotas: "resourcequotas",
};

const live = (p: Pod) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed";

/** A pod's request or limit of a resource: its containers' sum, or its largest init container's. */
function podAmount(p: Pod, kind: "requests" | "limits", res: string): number {
  const of = (c: Container) => parseQuantity(c.resources?.[kind]?.[res] ?? 0) || 0;
  const sum = (p.spec?.containers ?? []).reduce((a, c) => a + of(c), 0);
  return Math.max(sum, ...(p.spec?.initContainers ?? []).map(of));
}

/** A quantity as the quota controller prints it: CPU in cores or millicores, memory as given. */
function quantity(n: number, like: string): string {
  if (n === 0) return "0";
  if (/[KMGTPE]i$/.test(like)) {
    for (const [s, f] of [
      ["Ti", 1024 ** 4],
      ["Gi", 1024 ** 3],
      ["Mi", 1024 ** 2],
      ["Ki", 1024],
    ] as const)
      if (n % f === 0) return `${n / f}${s}`;
    return String(n);
  }
  const milli = Math.round(n * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

export function installResourceQuotaController(ctx: SimContext) {
  const { store, registry, runtime } = ctx;

  function used(ns: string, name: string, hard: string): string {
    const pods = () => (store.list(R("Pod"), ns) as Pod[]).filter(live);
    if (name === "pods" || name === "count/pods") return String(pods().length);
    const m = /^(requests\.|limits\.)?(cpu|memory|ephemeral-storage)$/.exec(name);
    if (m) {
      const kind = m[1] === "limits." ? "limits" : "requests";
      return quantity(
        pods().reduce((a, p) => a + podAmount(p, kind, m[2]), 0),
        hard,
      );
    }
    const count = /^count\/([a-z0-9-]+)(?:\.(.+))?$/.exec(name);
    const rt = count
      ? resourceByPath(count[2] ?? "", "v1", count[1])
      : COUNTED[name]
        ? resourceByPath("", "v1", COUNTED[name])
        : undefined;
    if (rt) return String(store.list(rt, ns).length);
    return "0";
  }

  runtime.register(NAME, (key) => {
    const [ns, name] = splitKey(key);
    const q = registry.tryGet(R("ResourceQuota"), ns, name) as ResourceQuota | undefined;
    if (!q || q.metadata.deletionTimestamp) return;
    const hard = { ...(q.spec?.hard ?? {}) };
    const status = {
      hard,
      used: Object.fromEntries(Object.keys(hard).map((r) => [r, used(ns!, r, String(hard[r]))])),
    };
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
