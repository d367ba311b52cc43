// JSON merge patch (RFC 7386), as application/merge-patch+json: objects merge recursively,
// null deletes, anything else (arrays included) replaces.

import { badRequest } from "./errors.js";
import { isObject, type JsonObject, jsonKind } from "./json.js";

/** Merges `patch` into a copy of `target`; `target` itself is left alone. */
export function mergePatch(target: JsonObject, patch: unknown): JsonObject {
  // RFC 7386 allows a non-object patch (it replaces the document) but kube rejects it.
  if (!isObject(patch))
    throw badRequest(`Invalid JSON Patch: a merge patch must be a JSON object, got ${jsonKind(patch)}`);
  return mergeObject(target, patch);
}

function mergeObject(target: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergeValue(out[key], value);
  }
  return out;
}

function mergeValue(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  // A new object still goes through the merge so that its own nulls are dropped.
  return mergeObject(isObject(target) ? target : {}, patch);
}
