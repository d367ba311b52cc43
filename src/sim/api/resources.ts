// The resources the embedded cluster serves: what discovery lists and what the router accepts.
import { KEY, type ResourceType } from "../core/types.js";
import { BUILTIN_RESOURCES } from "./resource-list.js";

export { RW } from "./resource-list.js";

/** Everything served besides what CRDs add (resource-list.ts). */
export const RESOURCES: ResourceType[] = BUILTIN_RESOURCES;

/** Metrics are computed on read, never stored. */
export const isMetrics = (r: ResourceType) => r.group === "metrics.k8s.io";

/** Kinds the API answers without keeping objects: reviews, bindings, component statuses. */
const UNSTORED = new Set([
  "bindings",
  "componentstatuses",
  "tokenreviews",
  "selfsubjectreviews",
  "localsubjectaccessreviews",
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "subjectaccessreviews",
]);

/**
 * The resources whose objects the store keeps, once each: one version per storage key, so that
 * walking them (namespace deletion, garbage collection) meets every object once.
 */
export function storedResources(extra: ResourceType[] = []): ResourceType[] {
  const seen = new Set<string>();
  return [...RESOURCES, ...extra].filter((r) => {
    if (isMetrics(r) || UNSTORED.has(r.resource) || seen.has(KEY(r))) return false;
    seen.add(KEY(r));
    return true;
  });
}

export const apiVersionOf = (r: ResourceType) => (r.group ? `${r.group}/${r.version}` : r.version);

const byPath = new Map(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

export function resourceByPath(group: string, version: string, resource: string): ResourceType | undefined {
  return byPath.get(`${group}/${version}/${resource}`);
}

/** The resource a kind belongs to, whatever its version (for owner references). */
export function resourceOfKind(kind: string, group?: string): ResourceType | undefined {
  return RESOURCES.find(
    (r) => r.kind === kind && !isMetrics(r) && (group === undefined || r.group === group),
  );
}

export interface GroupVersion {
  group: string;
  version: string;
}

export function groupVersions(extra: ResourceType[] = []): GroupVersion[] {
  const seen = new Map<string, GroupVersion>();
  for (const r of [...RESOURCES, ...extra])
    seen.set(`${r.group}/${r.version}`, { group: r.group, version: r.version });
  return [...seen.values()];
}

const byKind = new Map<string, ResourceType>();

/** The ResourceType of a built-in kind ("Pod", "Deployment", ...). */
export function R(kind: string): ResourceType {
  let rt = byKind.get(kind);
  if (!rt) {
    rt = resourceOfKind(kind);
    if (!rt) throw new Error(`unknown kind ${kind}`);
    byKind.set(kind, rt);
  }
  return rt;
}
