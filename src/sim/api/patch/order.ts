// Element order of a merged list, as strategicpatch settles it: items named by the patch (or
// by $setElementOrder) keep the patch's relative order, items only the server has keep the
// live order, and the two are interleaved using the live order where both sides know an item.
// An item new to the server therefore lands before the server-only items that follow it,
// which is why `kubectl patch` without $setElementOrder puts a new env var first.

import { badRequest } from "./errors.js";
import { isObject, show } from "./json.js";

/** What identifies an element: its merge key value, or the element itself for primitives. */
export function identity(item: unknown, key: string | undefined): unknown {
  if (!key) return item;
  return isObject(item) ? item[key] : undefined;
}

export function indexIn(list: readonly unknown[], item: unknown, key: string | undefined): number {
  const id = identity(item, key);
  return list.findIndex((other) => identity(other, key) === id);
}

/**
 * Orders `merged` by `wanted` (the patch list or the $setElementOrder list) and by `live` (the
 * list before the patch) for the items `wanted` does not name.
 */
export function settleOrder(
  merged: unknown[],
  wanted: readonly unknown[],
  live: readonly unknown[],
  key: string | undefined,
): unknown[] {
  const named = merged.filter((item) => indexIn(wanted, item, key) >= 0);
  const serverOnly = merged.filter((item) => indexIn(wanted, item, key) < 0);
  return interleave(sortBy(serverOnly, live, key), sortBy(named, wanted, key), live, key);
}

/** Stable sort by position in `order`; items `order` lacks stay at the end, in their order. */
function sortBy(items: unknown[], order: readonly unknown[], key: string | undefined): unknown[] {
  const rank = (item: unknown) => {
    const i = indexIn(order, item, key);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  return items
    .map((item, i) => ({ item, i, r: rank(item) }))
    .sort((a, b) => (a.r === b.r ? a.i - b.i : a.r - b.r))
    .map((e) => e.item);
}

/** Merges two sorted lists; a server-only item goes first only if the live order says so. */
function interleave(
  serverOnly: unknown[],
  named: unknown[],
  live: readonly unknown[],
  key: string | undefined,
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < named.length) {
    if (j >= named.length || (i < serverOnly.length && before(serverOnly[i], named[j], live, key))) {
      out.push(serverOnly[i++]);
    } else {
      out.push(named[j++]);
    }
  }
  return out;
}

function before(a: unknown, b: unknown, live: readonly unknown[], key: string | undefined): boolean {
  const ia = indexIn(live, a, key);
  const ib = indexIn(live, b, key);
  return ia >= 0 && ib >= 0 && ia < ib;
}

/**
 * Checks a patch list against its $setElementOrder list: every item the patch names must appear
 * there, in the same relative order (kube rejects the patch otherwise).
 */
export function checkElementOrder(patchList: unknown[], order: unknown[], key: string | undefined): void {
  if (key) {
    for (const item of order) {
      if (!isObject(item) || !(key in item)) {
        throw badRequest(`map: ${show(item)} does not contain declared merge key: ${key}`);
      }
    }
  }
  const items = patchList.filter((item) => !(isObject(item) && "$patch" in item));
  let i = 0;
  for (let j = 0; i < items.length && j < order.length; j++) {
    if (identity(items[i], key) === identity(order[j], key)) i++;
  }
  if (i < items.length) {
    throw badRequest(
      `The order in patch list: ${show(patchList)} doesn't match $setElementOrder list: ${show(order)}`,
    );
  }
}
