// labelSelector and fieldSelector query parameters, parsed as the API server does.
import type { KObject } from "../core/types.js";
import { badRequest } from "./status.js";

export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!" };

export type Selector = (labels: Record<string, string> | undefined) => boolean;

/** Split on commas that are not inside parentheses: "a in (x,y),b=c". */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out.map((t) => t.trim()).filter(Boolean);
}

const KEY_RE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;

function checkKey(key: string, raw: string): string {
  if (!KEY_RE.test(key))
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in "${raw}"`);
  return key;
}

export function parseLabelSelector(raw: string | null | undefined): Requirement[] {
  if (!raw) return [];
  return splitTerms(raw).map((term): Requirement => {
    let m = term.match(/^(\S+)\s+(in|notin)\s+\((.*)\)$/);
    if (m) {
      const values = m[3]
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean);
      return { key: checkKey(m[1], raw), op: m[2] as "in" | "notin", values };
    }
    m = term.match(/^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/);
    if (m) return { key: checkKey(m[1], raw), op: m[2] === "!=" ? "!=" : "=", value: m[3].trim() };
    if (term.startsWith("!")) return { key: checkKey(term.slice(1).trim(), raw), op: "!" };
    return { key: checkKey(term, raw), op: "exists" };
  });
}

export function matches(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.op) {
      case "=":
        return has && l[r.key] === r.value;
      case "!=":
        return !has || l[r.key] !== r.value;
      case "in":
        return has && r.values.includes(l[r.key]);
      case "notin":
        return !has || !r.values.includes(l[r.key]);
      case "exists":
        return has;
      case "!":
        return !has;
      default:
        return false;
    }
  });
}

/** A LabelSelector object (matchLabels + matchExpressions), as workloads and Chaos Mesh use it. */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export function selectorMatches(
  sel: LabelSelectorSpec | undefined,
  labels: Record<string, string> | undefined,
) {
  if (!sel) return false;
  const reqs: Requirement[] = Object.entries(sel.matchLabels ?? {}).map(([key, value]) => ({
    key,
    op: "=",
    value,
  }));
  for (const e of sel.matchExpressions ?? []) {
    const op = e.operator.toLowerCase();
    if (op === "in" || op === "notin") reqs.push({ key: e.key, op, values: e.values ?? [] });
    else if (op === "exists") reqs.push({ key: e.key, op: "exists" });
    else if (op === "doesnotexist") reqs.push({ key: e.key, op: "!" });
  }
  return matches(reqs, labels);
}

export function selectorToString(sel: LabelSelectorSpec | undefined): string {
  if (!sel) return "";
  const parts = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) {
    const op = e.operator.toLowerCase();
    if (op === "exists") parts.push(e.key);
    else if (op === "doesnotexist") parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${op} (${(e.values ?? []).join(",")})`);
  }
  return parts.join(",");
}

type FieldReq = { path: string[]; neg: boolean; value: string };

export function parseFieldSelector(raw: string | null | undefined): FieldReq[] {
  if (!raw) return [];
  return raw
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((term) => {
      const m = term.match(/^([^!=]+)(==|=|!=)(.*)$/);
      if (!m) throw badRequest(`invalid selector: '${raw}'; can't understand '${term}'`);
      return { path: m[1].trim().split("."), neg: m[2] === "!=", value: m[3].trim() };
    });
}

function fieldValue(obj: KObject, path: string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return "";
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur === undefined || cur === null ? "" : String(cur);
}

export function fieldMatches(reqs: FieldReq[], obj: KObject): boolean {
  return reqs.every((r) => (fieldValue(obj, r.path) === r.value) !== r.neg);
}
