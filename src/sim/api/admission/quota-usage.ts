// What objects use of a ResourceQuota, as the quota evaluators measure it
// (pkg/quota/v1/evaluator/core: pods.go, services.go, persistent_volume_claims.go; and
// apiserver/pkg/quota/v1/generic: the object count evaluator and Matches). Shared by the
// ResourceQuota admission plugin (quota.ts), which charges one object, and the resourcequota
// controller, which sums a namespace.
//
// - A pod always counts in count/pods; it counts in pods and its compute resources (requests.*,
//   the bare cpu/memory/ephemeral-storage being requests, and limits.*) until it is terminal or
//   has outlived its deletion grace period twice over (QuotaV1Pod). Its requests and limits are
//   its containers' sums, or its largest init container's if larger.
// - A quota with scopes matches pods only (object counts match no scope): Terminating pods have
//   activeDeadlineSeconds, BestEffort ones no requests or limits, PriorityClass selects on
//   priorityClassName.

import type { Container, Pod } from "../../core/objects.js";
import type { KObject, ResourceType } from "../../core/types.js";
import type { Store } from "../../store/store.js";
import { qosClass } from "../defaults.js";
import { RESOURCES } from "../resources.js";
import { addQty, parseQty, type Qty, ZERO } from "./quantity.js";

export interface ScopedSelector {
  scopeName: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values?: string[];
}

export interface ResourceQuota extends KObject {
  spec?: {
    hard?: Record<string, string>;
    scopes?: string[];
    scopeSelector?: { matchExpressions?: ScopedSelector[] };
  };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

/** A resource list: resource name to quantity. */
export type Usage = Map<string, Qty>;

const POD_RESOURCES = new Set([
  "count/pods",
  "pods",
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
]);

/** Kinds whose evaluators also answer to the bare resource name (the legacy object counts). */
const LEGACY_COUNTS = new Set([
  "services",
  "configmaps",
  "secrets",
  "persistentvolumeclaims",
  "replicationcontrollers",
  "resourcequotas",
]);

/** Resources the API server never charges to a quota (pkg/quota/v1/install: ignoredResources). */
const IGNORED = new Set(["/events", "events.k8s.io/events", "/bindings", "/componentstatuses"]);

export const quotaIgnores = (rt: ResourceType) => IGNORED.has(`${rt.group}/${rt.resource}`);

/** count/<resource>[.<group>]: the object count name of a resource. */
export const countName = (rt: ResourceType) => `count/${rt.resource}${rt.group ? `.${rt.group}` : ""}`;

/** The evaluator's MatchingResources: which of these names it tracks for objects of `rt`. */
export function matchingResources(rt: ResourceType, names: string[]): string[] {
  const own = ownResources(rt);
  return names.filter((n) => own.has(n) || (rt.resource === "pods" && n.startsWith("requests.hugepages-")));
}

function ownResources(rt: ResourceType): Set<string> {
  if (!rt.group && rt.resource === "pods") return POD_RESOURCES;
  const own = new Set([countName(rt)]);
  if (!rt.group && LEGACY_COUNTS.has(rt.resource)) own.add(rt.resource);
  if (!rt.group && rt.resource === "services")
    for (const s of ["services.loadbalancers", "services.nodeports"]) own.add(s);
  if (!rt.group && rt.resource === "persistentvolumeclaims") own.add("requests.storage");
  return own;
}

const one = (): Qty => ({ milli: 1000, format: "DecimalSI" });

function add(u: Usage, name: string, q: Qty | undefined): void {
  if (q) u.set(name, addQty(u.get(name) ?? ZERO, q));
}

/** A pod's requests or limits of a resource: the containers' sum, or the largest init container's. */
function podAmount(pod: Pod, kind: "requests" | "limits", res: string): Qty | undefined {
  const of = (c: Container) => parseQty(c.resources?.[kind]?.[res] as string | undefined);
  let sum: Qty | undefined;
  for (const c of pod.spec?.containers ?? []) {
    const q = of(c);
    if (q) sum = addQty(sum ?? ZERO, q);
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const q = of(c);
    if (q && (!sum || q.milli > sum.milli)) sum = q;
  }
  return sum;
}

/** QuotaV1Pod: whether a pod's compute resources are still charged. */
function charged(pod: Pod, now: number): boolean {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const m = pod.metadata;
  if (m.deletionTimestamp && m.deletionGracePeriodSeconds !== undefined)
    return now <= Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000;
  return true;
}

/** The evaluator's Usage: what one object adds to each resource it is measured in (`now` a shown instant, as the objects' timestamps are). */
export function usageOf(rt: ResourceType, obj: KObject, now: number): Usage {
  const u: Usage = new Map();
  u.set(countName(rt), one());
  if (!rt.group && rt.resource === "pods") {
    const pod = obj as Pod;
    if (!charged(pod, now)) return u;
    u.set("pods", one());
    for (const res of ["cpu", "memory", "ephemeral-storage"]) {
      const req = podAmount(pod, "requests", res);
      add(u, res, req);
      add(u, `requests.${res}`, req);
      add(u, `limits.${res}`, podAmount(pod, "limits", res));
    }
    return u;
  }
  if (!rt.group && LEGACY_COUNTS.has(rt.resource)) u.set(rt.resource, one());
  if (!rt.group && rt.resource === "services") {
    const spec = (obj.spec ?? {}) as { type?: string; ports?: unknown[] };
    const lb = spec.type === "LoadBalancer";
    if (lb) u.set("services.loadbalancers", one());
    if (lb || spec.type === "NodePort")
      u.set("services.nodeports", { milli: 1000 * (spec.ports?.length ?? 0), format: "DecimalSI" });
  }
  if (!rt.group && rt.resource === "persistentvolumeclaims") {
    const storage = (obj.spec as { resources?: { requests?: { storage?: string } } } | undefined)?.resources
      ?.requests?.storage;
    add(u, "requests.storage", parseQty(storage));
  }
  return u;
}

/** The quota's scopes and scopeSelector as one list of requirements (getScopeSelectorsFromQuota). */
function scopeSelectors(q: ResourceQuota): ScopedSelector[] {
  return [
    ...(q.spec?.scopes ?? []).map((scopeName): ScopedSelector => ({ scopeName, operator: "Exists" })),
    ...(q.spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

function podMatchesScope(s: ScopedSelector, pod: Pod): boolean {
  const spec = pod.spec ?? {};
  switch (s.scopeName) {
    case "Terminating":
      return typeof spec.activeDeadlineSeconds === "number" && spec.activeDeadlineSeconds >= 0;
    case "NotTerminating":
      return !(typeof spec.activeDeadlineSeconds === "number" && spec.activeDeadlineSeconds >= 0);
    case "BestEffort":
      return qosClass(spec) === "BestEffort";
    case "NotBestEffort":
      return qosClass(spec) !== "BestEffort";
    case "PriorityClass": {
      // a label selector over {PriorityClass: the pod's class} (podMatchesSelector)
      const pc = spec.priorityClassName ?? "";
      if (s.operator === "In") return (s.values ?? []).includes(pc);
      if (s.operator === "NotIn") return !(s.values ?? []).includes(pc);
      return s.operator === "Exists" ? pc !== "" : false;
    }
    default:
      return false;
  }
}

/** generic.Matches: the quota constrains something the object uses, and every scope holds. */
export function quotaMatches(q: ResourceQuota, rt: ResourceType, obj: KObject): boolean {
  if (!matchingResources(rt, Object.keys(q.status?.hard ?? {})).length) return false;
  const isPod = !rt.group && rt.resource === "pods";
  return scopeSelectors(q).every((s) => isPod && podMatchesScope(s, obj as Pod));
}

function kindOfName(name: string): ResourceType | undefined {
  if (POD_RESOURCES.has(name)) return RESOURCES.find((r) => !r.group && r.resource === "pods");
  const count = /^count\/([a-z0-9-]+)(?:\.(.+))?$/.exec(name);
  const [resource, group] = count ? [count[1], count[2] ?? ""] : [name.split(".")[0], ""];
  if (!count && name === "requests.storage")
    return RESOURCES.find((r) => r.resource === "persistentvolumeclaims");
  return RESOURCES.find((r) => r.group === group && r.resource === resource);
}

/**
 * What a namespace uses of each resource the quota constrains (quota.CalculateUsage): every
 * tracked name starts at 0 and sums the matching objects' usage; names no evaluator knows stay 0.
 */
export function namespaceUsage(
  store: Store,
  ns: string,
  q: ResourceQuota,
  hard: string[],
  now: number,
): Usage {
  const used: Usage = new Map(hard.map((h) => [h, ZERO]));
  const kinds = new Map<string, ResourceType>();
  for (const h of hard) {
    const rt = kindOfName(h);
    if (rt) kinds.set(`${rt.group}/${rt.resource}`, rt);
  }
  const scopes = scopeSelectors(q);
  for (const rt of kinds.values()) {
    const isPod = !rt.group && rt.resource === "pods";
    if (scopes.length && !isPod) continue;
    const names = matchingResources(rt, hard);
    for (const o of store.list(rt, ns)) {
      if (!scopes.every((s) => podMatchesScope(s, o as Pod))) continue;
      const u = usageOf(rt, o, now);
      for (const n of names) add(used, n, u.get(n));
    }
  }
  return used;
}
