// JSON patch (RFC 6902), as application/json-patch+json, on top of fast-json-patch.
// Kube answers 400 when the body is not a list of operations and 422 when an operation cannot
// apply; the 422 carries kube's generic message with the detail as a cause.

import jsonpatch, { type Operation } from "fast-json-patch";
import { badRequest, rejected } from "./errors.js";
import { isObject, type JsonObject, jsonKind } from "./json.js";

/** Applies the operations to a copy of `target`; `target` itself is left alone. */
export function jsonPatch(target: JsonObject, body: unknown): unknown {
  const ops = decodeOperations(body);
  try {
    // Cloned: fast-json-patch inserts operation values into the document by reference.
    return jsonpatch.applyPatch(target, structuredClone(ops), true, false).newDocument;
  } catch (err) {
    throw rejected(describeFailure(err, ops));
  }
}

function decodeOperations(body: unknown): Operation[] {
  if (!Array.isArray(body)) {
    throw badRequest(
      `error decoding patch: a JSON patch must be an array of operations, got ${jsonKind(body)}`,
    );
  }
  body.forEach((op, i) => {
    if (!isObject(op))
      throw badRequest(`error decoding patch: operation ${i} must be an object, got ${jsonKind(op)}`);
  });
  return body as Operation[];
}

/** A one-line reason in the words evanphx/json-patch (kube's library) uses, where it has them. */
function describeFailure(err: unknown, ops: Operation[]): string {
  if (!(err instanceof jsonpatch.JsonPatchError)) return err instanceof Error ? err.message : String(err);
  const op = ops[err.index ?? 0] as { op?: unknown; path?: unknown; from?: unknown } | undefined;
  const path = String(op?.path ?? "");
  switch (err.name) {
    case "TEST_OPERATION_FAILED":
      return `testing value ${path} failed: test failed`;
    case "OPERATION_OP_INVALID":
      return `Unexpected kind: ${String(op?.op)}`;
    case "OPERATION_PATH_UNRESOLVABLE":
    case "OPERATION_PATH_CANNOT_ADD":
      return `${String(op?.op)} operation does not apply: doc is missing path: "${path}": missing value`;
    case "OPERATION_FROM_UNRESOLVABLE":
      return `${String(op?.op)} operation does not apply: doc is missing from path: "${String(op?.from)}": missing value`;
    case "OPERATION_VALUE_OUT_OF_BOUNDS":
    case "OPERATION_PATH_ILLEGAL_ARRAY_INDEX":
      return `${String(op?.op)} operation does not apply: index out of bounds at ${path}`;
    default:
      // fast-json-patch appends the whole document to its message; keep only the first line.
      return err.message.split("\n")[0];
  }
}
