// What a write changed, as structured-merge-diff's typed Compare sees it: the paths modified,
// added and removed between the live object and the new one; and the set of fields an applied
// configuration names (ToFieldSet). Lists that strategic merge merges are walked item by item
// (`k:` by their merge key, `v:` as a set); every other list is atomic, one field.
import { isDeepStrictEqual } from "node:util";
import { type FieldMeta, type Fields, fieldsOf, rootFields } from "../patch/keys.js";
import { encode, type PathSet } from "./tree.js";

export interface Comparison {
  modified: PathSet;
  added: PathSet;
  removed: PathSet;
}

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Each item of a merged list with the path element that names it. */
function items(list: unknown[], meta: FieldMeta): [string, unknown][] {
  return list.map((item) => {
    if (meta.key && isMap(item)) return [`k:${JSON.stringify({ [meta.key]: item[meta.key] })}`, item];
    return [`v:${JSON.stringify(item)}`, item];
  });
}

const merged = (v: unknown, meta: FieldMeta | undefined): meta is FieldMeta =>
  Array.isArray(v) && meta?.strategy === "merge";

/** Fields of struct type that an object's Go zero value already holds: never added, so never members. */
const STRUCTS = new Set(["f:metadata", "f:spec", "f:status", "f:template", "f:strategy"]);

/**
 * Every path in a value: its members. `containers` says whether a map is a member itself (an
 * Update owns the maps it adds, an applied configuration only what it sets); a list is not.
 */
function walk(
  v: unknown,
  path: string[],
  fields: Fields,
  meta: FieldMeta | undefined,
  containers: boolean,
  out: PathSet,
) {
  const isItem = path.length > 0 && !path[path.length - 1].startsWith("f:");
  if (isMap(v)) {
    const keys = Object.keys(v);
    const struct = STRUCTS.has(path[path.length - 1]);
    if (path.length > 0 && (keys.length === 0 || isItem || (containers && !struct))) out.add(encode(path));
    for (const k of keys) walk(v[k], [...path, `f:${k}`], fieldsOf(fields[k]), fields[k], containers, out);
  } else if (merged(v, meta)) {
    for (const [el, item] of items(v as unknown[], meta))
      walk(item, [...path, el], fields, undefined, containers, out);
  } else if (path.length > 0) out.add(encode(path));
}

/** The fields an applied configuration sets. */
export function fieldSet(config: unknown, kind: string): PathSet {
  const out: PathSet = new Set();
  walk(config, [], rootFields(kind), undefined, false, out);
  return out;
}

export function compare(old: unknown, next: unknown, kind: string): Comparison {
  const c: Comparison = { modified: new Set(), added: new Set(), removed: new Set() };
  diff(old, next, [], rootFields(kind), undefined, c);
  return c;
}

function diff(
  a: unknown,
  b: unknown,
  path: string[],
  fields: Fields,
  meta: FieldMeta | undefined,
  c: Comparison,
) {
  if (isMap(a) && isMap(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const p = [...path, `f:${k}`];
      if (!(k in b)) walk(a[k], p, fieldsOf(fields[k]), fields[k], true, c.removed);
      else if (!(k in a)) walk(b[k], p, fieldsOf(fields[k]), fields[k], true, c.added);
      else diff(a[k], b[k], p, fieldsOf(fields[k]), fields[k], c);
    }
    return;
  }
  if (merged(a, meta) && merged(b, meta)) {
    const before = new Map(items(a as unknown[], meta));
    const after = new Map(items(b as unknown[], meta));
    for (const [el, item] of after) {
      if (!before.has(el)) walk(item, [...path, el], fields, undefined, true, c.added);
      else diff(before.get(el), item, [...path, el], fields, undefined, c);
    }
    for (const [el, item] of before)
      if (!after.has(el)) walk(item, [...path, el], fields, undefined, true, c.removed);
    return;
  }
  if (!isDeepStrictEqual(a, b)) c.modified.add(encode(path));
}
