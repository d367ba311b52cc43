// Strategic merge patch (application/strategic-merge-patch+json), as
// k8s.io/apimachinery/pkg/util/strategicpatch applies it on the server: a JSON merge patch
// whose lists are merged by patch merge key where the Go type says so (see keys.ts), plus the
// directives kubectl sends:
//   "$patch": "replace" | "delete" | "merge"   in an object: replace it, empty it, or merge it
//   "$retainKeys": [...]                       drop every live key not listed
//   "$setElementOrder/<list>": [...]           the order the merged list must end up in
//   "$deleteFromPrimitiveList/<list>": [...]   primitives to remove from a merged list
// A null value deletes the field.

import { badRequest, rejected } from "./errors.js";
import { clone, isObject, type JsonObject, jsonKind, show } from "./json.js";
import { type FieldMeta, type Fields, fieldsOf, rootFields } from "./keys.js";
import { deleteFromList, mergeList } from "./lists.js";
import { checkElementOrder, settleOrder } from "./order.js";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ORDER = "$setElementOrder";
const DELETE_PRIMITIVES = "$deleteFromPrimitiveList";

/** Applies a strategic merge patch to a copy of `target` of the given built-in kind. */
export function strategicMerge(target: JsonObject, patch: unknown, kind: string): JsonObject {
  if (!isObject(patch)) {
    throw badRequest(
      `error decoding patch: a strategic merge patch must be a JSON object, got ${jsonKind(patch)}`,
    );
  }
  return mergeMap(clone(target), clone(patch), rootFields(kind));
}

/** Merges `patch` into `original`; both are private copies and are consumed. */
function mergeMap(original: JsonObject, patch: JsonObject, fields: Fields): JsonObject {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    delete patch[DIRECTIVE];
    if (directive === "delete") return {};
    if (directive === "replace") return mergeMap({}, patch, fields);
    // kube rejects "merge" here; accepting it as the default is harmless and what one expects.
    if (directive !== "merge")
      throw badRequest(`unknown patch type: ${show(directive)} in map: ${show(patch)}`);
  }
  retainKeys(original, patch);
  setElementOrders(original, patch, fields);

  const deletions: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_PRIMITIVES)) deletions.push([listField(key, DELETE_PRIMITIVES), value]);
    else if (value === null) delete original[key];
    else original[key] = mergeValue(original[key], value, fields[key]);
  }
  for (const [field, values] of deletions) deletePrimitives(original, field, values);
  return original;
}

/** The merged value of one field: objects merge, lists follow their strategy, the rest replaces. */
function mergeValue(original: unknown, patch: unknown, meta: FieldMeta | undefined): unknown {
  if (isObject(patch)) return mergeMap(isObject(original) ? original : {}, patch, fieldsOf(meta));
  if (Array.isArray(patch)) return mergeList(Array.isArray(original) ? original : [], patch, meta, mergeMap);
  return patch;
}

/** `$retainKeys`: every key of the patch must be listed; live keys not listed are dropped. */
function retainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const listed = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(listed)) throw badRequest("invalid patch format of retainKeys");
  const keep = new Set<unknown>(listed);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(SET_ORDER) || key.startsWith(DELETE_PRIMITIVES)) continue;
    if (!keep.has(key)) throw rejected("patch content doesn't match retainKeys list");
  }
  for (const key of Object.keys(original)) {
    if (!keep.has(key)) delete original[key];
  }
}

/**
 * `$setElementOrder/<list>`: merges that list now (so the main loop skips it) and puts its
 * elements in the given order; live elements the order omits keep their live place.
 */
function setElementOrders(original: JsonObject, patch: JsonObject, fields: Fields): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    const field = listField(key, SET_ORDER);
    if (!Array.isArray(order)) throw badRequest(`invalid patch format of ${SET_ORDER} list: ${show(order)}`);
    const live = Array.isArray(original[field]) ? (original[field] as unknown[]) : undefined;
    const incoming = patch[field];
    // A null or non-list value is the main loop's business; there is no list to order.
    if (incoming !== undefined && !Array.isArray(incoming)) continue;
    if (!live && !incoming) continue;
    const meta = fields[field];
    if (incoming) checkElementOrder(incoming, order, meta?.key);
    const merged = incoming ? mergeList(clone(live ?? []), incoming, meta, mergeMap) : (live as unknown[]);
    original[field] = settleOrder(merged, order, live ?? [], meta?.key);
    delete patch[field];
  }
}

/** `$deleteFromPrimitiveList/<list>`: removes the listed primitives from the live list. */
function deletePrimitives(original: JsonObject, field: string, values: unknown): void {
  if (!Array.isArray(values))
    throw badRequest(`invalid patch format of ${DELETE_PRIMITIVES} list: ${show(values)}`);
  const live = original[field];
  if (Array.isArray(live)) original[field] = deleteFromList(live, values);
}

/** The list a parallel directive key refers to: "$setElementOrder/env" -> "env". */
function listField(key: string, prefix: string): string {
  const field = key.slice(prefix.length + 1);
  if (key[prefix.length] !== "/" || field === "") {
    throw badRequest(`invalid patch format: ${key} must be ${prefix}/<field>`);
  }
  return field;
}
