// Matching one RBAC PolicyRule against request attributes, as
// kubernetes pkg/apis/rbac/v1/evaluation_helpers.go does it (VerbMatches, APIGroupMatches,
// ResourceMatches, ResourceNameMatches, NonResourceURLMatches).
import type { Attributes } from "./request-info.js";

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = "*";

const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === ALL || x === v);

// "pods/log" matches pods/log; a rule naming "*" + "/scale" matches every resource's scale.
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function nameMatches(rule: PolicyRule, name: string): boolean {
  if (!rule.resourceNames?.length) return true;
  return rule.resourceNames.includes(name);
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (u) => u === ALL || u === path || (u.endsWith("*") && path.startsWith(u.slice(0, -1))),
  );
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return urlMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    has(rule.apiGroups, a.apiGroup) &&
    resourceMatches(rule, combined, a.subresource) &&
    nameMatches(rule, a.name)
  );
}

/** A rule from stored JSON, with anything malformed dropped (it then matches nothing). */
export function toRule(v: unknown): PolicyRule | undefined {
  if (!v || typeof v !== "object") return undefined;
  const o = v as Record<string, unknown>;
  const list = (k: string) =>
    Array.isArray(o[k]) ? (o[k] as unknown[]).filter((x): x is string => typeof x === "string") : undefined;
  const verbs = list("verbs");
  if (!verbs) return undefined;
  return {
    verbs,
    apiGroups: list("apiGroups"),
    resources: list("resources"),
    resourceNames: list("resourceNames"),
    nonResourceURLs: list("nonResourceURLs"),
  };
}
