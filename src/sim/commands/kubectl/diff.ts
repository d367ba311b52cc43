// The strategic merge patches kubectl computes on the client (apimachinery strategicpatch
// CreateTwoWayMergePatch / CreateThreeWayMergePatch): fields that changed, null for fields gone,
// lists with a patch merge key diffed element by element (a removed element as
// {"key": k, "$patch": "delete"}, the new order as $setElementOrder/<field>), other lists whole.
// The merge keys are the API's (the patchMergeKey tags kept in api/patch/keys.ts).
import { type Fields, fieldsOf, rootFields } from "../../api/patch/keys.js";

type J = Record<string, unknown>;
const isObj = (v: unknown): v is J => !!v && typeof v === "object" && !Array.isArray(v);

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The patch that turns `current` into `modified` for the fields `modified` sets, and deletes those
 * `original` set that `modified` no longer does (three-way; two-way when original is current).
 */
export function mergePatch(original: J, modified: J, current: J, fields: Fields): J {
  const out: J = {};
  for (const [k, m] of Object.entries(modified)) {
    const c = current[k];
    if (deepEqual(m, c)) continue;
    const meta = fields[k];
    if (isObj(m) && isObj(c)) {
      const sub = mergePatch(isObj(original[k]) ? (original[k] as J) : {}, m, c, fieldsOf(meta));
      if (Object.keys(sub).length) out[k] = sub;
    } else if (Array.isArray(m) && Array.isArray(c) && meta?.strategy === "merge" && meta.key) {
      const key = meta.key;
      const o = Array.isArray(original[k]) ? (original[k] as unknown[]) : [];
      const items: unknown[] = [];
      for (const el of m) {
        if (!isObj(el)) continue;
        const was = c.find((x) => isObj(x) && x[key] === el[key]);
        if (!isObj(was)) items.push(el);
        else {
          const oe = o.find((x) => isObj(x) && x[key] === el[key]);
          const sub = mergePatch(isObj(oe) ? oe : {}, el, was, fieldsOf(meta));
          if (Object.keys(sub).length) items.push({ [key]: el[key], ...sub });
        }
      }
      // elements the last configuration had and this one does not (two-way: every missing one)
      for (const el of o)
        if (
          isObj(el) &&
          !m.some((x) => isObj(x) && x[key] === el[key]) &&
          c.some((x) => isObj(x) && x[key] === el[key])
        )
          items.push({ [key]: el[key], $patch: "delete" });
      if (items.length) {
        out[`$setElementOrder/${k}`] = m.filter(isObj).map((el) => ({ [key]: el[key] }));
        out[k] = items;
      }
    } else out[k] = m;
  }
  for (const k of Object.keys(original))
    if (!(k in modified) && k in current && !k.startsWith("$")) out[k] = null;
  return out;
}

export function twoWay(before: J, after: J, kind: string): J {
  return mergePatch(before, after, before, rootFields(kind));
}

export function threeWay(original: J, modified: J, current: J, kind: string): J {
  return mergePatch(original, modified, current, rootFields(kind));
}
