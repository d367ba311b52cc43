// Lists under strategic merge patch. A list whose field declares `patchStrategy: merge` is
// merged: objects by their patch merge key (recursively), primitives as a set. Any other list
// is replaced by the patch's. Inside a merged list of objects an element may carry a directive:
// `{"name": "x", "$patch": "delete"}` drops the live element named x, `{"$patch": "replace"}`
// makes the patch's elements the whole list.

import { badRequest, rejected } from "./errors.js";
import { isObject, type JsonObject, show } from "./json.js";
import { type FieldMeta, type Fields, fieldsOf } from "./keys.js";
import { identity, indexIn, settleOrder } from "./order.js";

/** Merges one object of the patch into one of the live object (or into {} when new). */
export type MergeObject = (original: JsonObject, patch: JsonObject, fields: Fields) => JsonObject;

/** `original` and `patch` are private copies; the result may reuse and mutate them. */
export function mergeList(
  original: unknown[],
  patch: unknown[],
  meta: FieldMeta | undefined,
  merge: MergeObject,
): unknown[] {
  // Replaced lists still pass their objects through the merge, which strips directives.
  const fresh = (item: unknown) => (isObject(item) ? merge({}, item, fieldsOf(meta)) : item);
  if (meta?.strategy !== "merge") return patch.map(fresh);
  if (original.length === 0 && patch.length === 0) return original;

  if (elementsAreObjects(original, patch)) {
    if (!meta.key) throw badRequest("cannot merge lists without merge key");
    const special = applyListDirectives(original, patch, meta.key);
    if (special.replace) return special.items.map(fresh);
    const merged = mergeByKey(special.live, special.items, meta, merge);
    return settleOrder(merged, special.items, special.live, meta.key);
  }
  const merged = [...new Set([...original, ...patch])];
  return settleOrder(merged, patch, original, undefined);
}

/** Removes the given primitives from a list ($deleteFromPrimitiveList). */
export function deleteFromList(list: unknown[], toDelete: unknown[]): unknown[] {
  const gone = new Set(toDelete);
  return list.filter((item) => !gone.has(item));
}

/** True for lists of objects, false for lists of primitives; mixed lists are an error. */
function elementsAreObjects(original: unknown[], patch: unknown[]): boolean {
  const all = [...original, ...patch];
  if (all.some(Array.isArray)) throw rejected("lists of lists are not supported");
  const objects = all.filter(isObject).length;
  if (objects !== 0 && objects !== all.length) {
    throw badRequest(`list element types are not identical: ${show(original)} and ${show(patch)}`);
  }
  return objects > 0;
}

interface ListDirectives {
  /** The live list minus the elements the patch deletes. */
  live: unknown[];
  /** The patch elements without directives. */
  items: JsonObject[];
  replace: boolean;
}

function applyListDirectives(original: unknown[], patch: unknown[], key: string): ListDirectives {
  let live = original;
  const items: JsonObject[] = [];
  let replace = false;
  for (const item of patch as JsonObject[]) {
    const directive = item.$patch;
    if (directive === undefined) {
      items.push(item);
    } else if (directive === "delete") {
      if (!(key in item)) throw badRequest(`map: ${show(item)} does not contain declared merge key: ${key}`);
      live = live.filter((other) => identity(other, key) !== item[key]);
    } else if (directive === "replace") {
      replace = true; // the rest of the list is still scanned, so that other directives are dropped
    } else if (directive === "merge") {
      throw badRequest("merging lists cannot yet be specified in the patch");
    } else {
      throw badRequest(`unknown patch type: ${show(directive)} in map: ${show(item)}`);
    }
  }
  return { live, items, replace };
}

function mergeByKey(live: unknown[], items: JsonObject[], meta: FieldMeta, merge: MergeObject): unknown[] {
  const key = meta.key as string;
  const out = [...live];
  for (const item of items) {
    if (!(key in item)) throw badRequest(`map: ${show(item)} does not contain declared merge key: ${key}`);
    const at = indexIn(out, item, key);
    const base = at >= 0 && isObject(out[at]) ? (out[at] as JsonObject) : {};
    const merged = merge(base, item, fieldsOf(meta));
    if (at >= 0) out[at] = merged;
    else out.push(merged);
  }
  return out;
}
