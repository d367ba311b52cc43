// ResourceQuota admission, as kube-apiserver's plugin does it (plugin/pkg/admission/resourcequota:
// controller.go checkRequest, with the evaluators of quota-usage.ts). On CREATE of anything it
// charges (pods, services, configmaps, secrets, any count/<resource>), for each quota of the
// namespace that matches the object:
// - a pod must set, in every container, each of cpu/memory requests or limits the quota
//   constrains: `failed quota: q: must specify limits.memory for: app`;
// - the quota's status must already say what is used: `status unknown for quota: q, resources: ...`;
// - status.used plus the object's usage must stay within status.hard, else `exceeded quota: q,
//   requested: limits.memory=64Mi, used: limits.memory=960Mi, limited: limits.memory=1Gi`.
// An admitted object is charged at once: the quota's status.used is written before the object is
// stored (a dry run is checked, never charged); the resourcequota controller recounts later.

import type { KObject } from "../../core/types.js";
import type { AdmissionRequest, Registry } from "../registry.js";
import { R } from "../resources.js";
import { forbidden } from "./limitrange.js";
import { addQty, canonicalQty, formatQty, parseQty, type Qty, ZERO } from "./quantity.js";
import {
  matchingResources,
  quotaIgnores,
  quotaMatches,
  type ResourceQuota,
  type Usage,
  usageOf,
} from "./quota-usage.js";

/** cpu and memory in any form: a quota on them requires every container to say it (validationSet). */
const MUST_SPECIFY = new Set([
  "cpu",
  "memory",
  "requests.cpu",
  "requests.memory",
  "limits.cpu",
  "limits.memory",
]);

/** podComputeUsageHelper's names for what one container sets. */
function containerSets(c: { resources?: { requests?: object; limits?: object } }): Set<string> {
  const out = new Set<string>();
  for (const r of ["cpu", "memory"]) {
    if (c.resources?.requests && r in c.resources.requests) out.add(r).add(`requests.${r}`);
    if (c.resources?.limits && r in c.resources.limits) out.add(`limits.${r}`);
  }
  return out;
}

/** podEvaluator.Constraints: what the containers leave unset of what the quota constrains. */
function missing(pod: KObject, required: string[]): string | undefined {
  const need = required.filter((r) => MUST_SPECIFY.has(r));
  if (!need.length) return undefined;
  const spec = (pod.spec ?? {}) as { containers?: Named[]; initContainers?: Named[] };
  const byResource = new Map<string, Set<string>>();
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const has = containerSets(c);
    for (const r of need) if (!has.has(r)) byResource.set(r, (byResource.get(r) ?? new Set()).add(c.name));
  }
  if (!byResource.size) return undefined;
  return `must specify ${[...byResource.keys()]
    .sort()
    .map((r) => `${r} for: ${[...byResource.get(r)!].sort().join(",")}`)
    .join("; ")}`;
}

interface Named {
  name: string;
  resources?: { requests?: object; limits?: object };
}

/** prettyPrint: name=quantity, sorted by name, comma-separated. */
const pretty = (u: Usage) =>
  [...u.keys()]
    .sort()
    .map((k) => `${k}=${formatQty(u.get(k)!)}`)
    .join(",");

const mask = (u: Usage, names: Iterable<string>): Usage => {
  const out: Usage = new Map();
  for (const n of names) if (u.has(n)) out.set(n, u.get(n)!);
  return out;
};

function listOf(r: Record<string, string> | undefined): Usage {
  const out: Usage = new Map();
  for (const [k, v] of Object.entries(r ?? {})) out.set(k, parseQty(v) ?? ZERO);
  return out;
}

export function resourceQuotaAdmission(registry: Registry) {
  const { store, clock } = registry;
  return (req: AdmissionRequest): void => {
    if (req.operation !== "CREATE" || quotaIgnores(req.rt) || req.subresource) return;
    const ns = req.obj.metadata.namespace;
    if (!ns || !req.rt.namespaced) return;
    const quotas = (store.list(R("ResourceQuota"), ns) as ResourceQuota[]).filter(
      (q) => !q.metadata.deletionTimestamp,
    );
    if (!quotas.length) return;
    const deny = (reason: string) => forbidden(req.obj, reason, req.rt.resource, req.rt.group);
    const interesting: ResourceQuota[] = [];
    for (const q of quotas) {
      if (!quotaMatches(q, req.rt, req.obj)) continue;
      const restricted = matchingResources(req.rt, Object.keys(q.status?.hard ?? {}));
      if (req.rt.kind === "Pod" && !req.rt.group) {
        const why = missing(req.obj, restricted);
        if (why) throw deny(`failed quota: ${q.metadata.name}: ${why}`);
      }
      const unknown = restricted.filter((r) => !(r in (q.status?.used ?? {})));
      if (unknown.length)
        throw deny(
          `status unknown for quota: ${q.metadata.name}, resources: ${[...restricted].sort().join(",")}`,
        );
      interesting.push(q);
    }
    if (!interesting.length) return;
    const delta = usageOf(req.rt, req.obj, clock.toWall(clock.now()));
    const charges: [ResourceQuota, Usage][] = [];
    for (const q of interesting) {
      const hard = listOf(q.status?.hard);
      const used = listOf(q.status?.used);
      const requested = mask(delta, hard.keys());
      const next: Usage = new Map(used);
      for (const [k, v] of requested) next.set(k, addQty(next.get(k) ?? ZERO, v));
      const exceeded = [...requested.keys()].filter((k) => next.get(k)!.milli > hard.get(k)!.milli);
      if (exceeded.length)
        throw deny(
          `exceeded quota: ${q.metadata.name}, requested: ${pretty(mask(requested, exceeded))}, used: ${pretty(mask(used, exceeded))}, limited: ${pretty(mask(hard, exceeded))}`,
        );
      charges.push([q, next]);
    }
    if (req.dryRun) return;
    for (const [q, next] of charges) charge(registry, q, next);
  };
}

function charge(registry: Registry, q: ResourceQuota, next: Usage): void {
  const used: Record<string, string> = {};
  for (const [k, v] of next) used[k] = formatQty(v as Qty);
  registry.update(
    R("ResourceQuota"),
    q.metadata.namespace,
    q.metadata.name!,
    { ...q, status: { ...q.status, used } },
    { subresource: "status", force: true },
  );
}

/** A ResourceQuota's hard limits are stored canonical, as every quantity is. */
export function resourceQuotaDefaults(req: AdmissionRequest): void {
  if (req.rt.kind !== "ResourceQuota" || req.subresource) return;
  const hard = (req.obj as ResourceQuota).spec?.hard;
  if (hard) for (const k of Object.keys(hard)) hard[k] = canonicalQty(hard[k]);
}
