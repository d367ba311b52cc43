// What a patch may not change: the object's identity. Kube checks the patched object against
// the request URL (name, namespace: 400) and validates metadata.uid as immutable (422);
// apiVersion and kind are the resource's, whatever the patch says.

import type { KObject, ObjectMeta, ResourceType } from "../../core/types.js";
import { type ApiError, badRequest, invalid } from "../status.js";
import { isObject, jsonKind } from "./json.js";

/** `patched` with live's identity restored where the patch dropped it; throws where it changed it. */
export function keepIdentity(live: KObject, patched: unknown, rt: ResourceType): KObject {
  if (!isObject(patched)) {
    throw invalid(qualifiedKind(rt), live.metadata.name ?? "", [
      {
        field: "patch",
        message: `Invalid value: the patched object must be a JSON object, got ${jsonKind(patched)}`,
      },
    ]);
  }
  const metadata: ObjectMeta = isObject(patched.metadata) ? (patched.metadata as ObjectMeta) : {};
  const meta = live.metadata;
  keep(meta, metadata, "name", (name) =>
    badRequest(`the name of the object (${name}) does not match the name on the URL (${meta.name})`),
  );
  // A cluster-scoped object has no namespace, whatever the patch says (kube clears it too).
  if (!meta.namespace) delete metadata.namespace;
  keep(meta, metadata, "namespace", () =>
    badRequest("the namespace of the provided object does not match the namespace sent on the request"),
  );
  keep(meta, metadata, "uid", (uid) =>
    invalid(qualifiedKind(rt), meta.name ?? "", [
      { field: "metadata.uid", message: `Invalid value: ${JSON.stringify(uid)}: field is immutable` },
    ]),
  );
  return { ...patched, apiVersion: live.apiVersion, kind: live.kind, metadata };
}

type IdentityField = "name" | "namespace" | "uid";

/** Restores `field` where the patch dropped or emptied it; throws `changed(...)` where it set another value. */
function keep(
  live: ObjectMeta,
  patched: ObjectMeta,
  field: IdentityField,
  changed: (value: string) => ApiError,
): void {
  const value = patched[field];
  if (value === undefined || value === "") {
    if (live[field] === undefined) delete patched[field];
    else patched[field] = live[field];
  } else if (live[field] !== undefined && value !== live[field]) {
    throw changed(value);
  }
}

/** "Deployment.apps", or "Pod" for the core group, as kube names kinds in Invalid errors. */
function qualifiedKind(rt: ResourceType): string {
  return rt.group ? `${rt.kind}.${rt.group}` : rt.kind;
}
