// PATCH for the simulated API server: the four patch types kube serves, as pure functions of
// the live object and the request body. The caller stores the result (and decides whether
// anything changed, so that a no-op patch keeps resourceVersion and generation).

import YAML from "yaml";
import type { KObject, ResourceType } from "../../core/types.js";
import { unsupportedMediaType } from "../status.js";
import { badRequest } from "./errors.js";
import { keepIdentity } from "./identity.js";
import { clone, isObject, type JsonObject, jsonKind } from "./json.js";
import { jsonPatch } from "./jsonpatch.js";
import { mergePatch } from "./merge.js";
import { strategicMerge } from "./strategic.js";

export type PatchType = "strategic" | "merge" | "json" | "apply";

const CONTENT_TYPES: Record<string, PatchType> = {
  "application/strategic-merge-patch+json": "strategic",
  "application/merge-patch+json": "merge",
  "application/json-patch+json": "json",
  "application/apply-patch+yaml": "apply",
};

export const STRATEGIC_MERGE_CONTENT_TYPE = "application/strategic-merge-patch+json";

/** The patch type a Content-Type names (parameters such as charset ignored), if any. */
export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  if (!contentType) return undefined;
  const mediaType = contentType.split(";")[0].trim().toLowerCase();
  return CONTENT_TYPES[mediaType];
}

/** Decodes a request body: JSON for the first three types, YAML (a superset of JSON) for apply. */
export function parsePatchBody(type: PatchType, raw: string): unknown {
  if (type === "apply") {
    try {
      return YAML.parse(raw);
    } catch (err) {
      throw badRequest(`error decoding YAML: ${firstLine(err)}`);
    }
  }
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw badRequest(`error decoding patch: ${firstLine(err)}`);
  }
}

/** The patched object, new; `live` is never mutated. Errors are ApiErrors, as kube answers them. */
export function applyPatch(live: KObject, type: PatchType, body: unknown, rt: ResourceType): KObject {
  return keepIdentity(live, patched(clone(live), type, body, rt), rt);
}

function patched(live: JsonObject, type: PatchType, body: unknown, rt: ResourceType): unknown {
  switch (type) {
    case "merge":
      return mergePatch(live, body);
    case "json":
      return jsonPatch(live, body);
    case "strategic":
      // CRDs have no Go type to take merge keys from; kube refuses and clients fall back to merge.
      if (rt.custom) throw unsupportedMediaType(STRATEGIC_MERGE_CONTENT_TYPE);
      return strategicMerge(live, body, rt.kind);
    case "apply":
      return serverSideApply(live, body, rt);
  }
}

/**
 * Server-side apply's merge: the applied configuration is merged into the live object (strategic
 * merge for built-in kinds, JSON merge for custom resources). Who owns which field, and the
 * conflicts, are the field manager's (../fields/); fields this manager applied before but now
 * omits are kept rather than removed (structured-merge-diff would prune those no one else owns).
 */
function serverSideApply(live: JsonObject, body: unknown, rt: ResourceType): unknown {
  if (!isObject(body))
    throw badRequest(`error decoding YAML: the applied object must be a map, got ${jsonKind(body)}`);
  const applied = clone(body);
  if (isObject(applied.metadata)) delete applied.metadata.managedFields;
  return rt.custom ? mergePatch(live, applied) : strategicMerge(live, applied, rt.kind);
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0];
}
