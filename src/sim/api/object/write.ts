// POST, PUT and PATCH on a resource: create, replace, and the four kinds of patch (server-side
// apply creating what does not exist yet). A write answers with the warnings kubectl prints.
import type { ServerResponse } from "node:http";
import type { KObject } from "../../core/types.js";
import { parseJson, readBody, sendJson } from "../http.js";
import { applyPatch, parsePatchBody, patchTypeOf } from "../patch/index.js";
import { ApiError, badRequest, notFound } from "../status.js";
import { warningHeaders, writeWarnings } from "../warnings.js";
import { type Call, checkKind, managerOf } from "./call.js";

/** A write's warnings, as the Warning headers kubectl prints. */
function warn(res: ServerResponse, warnings: string[]) {
  if (warnings.length) res.setHeader("Warning", warningHeaders(warnings));
}

export async function create(c: Call) {
  const { r, res, dryRun } = c;
  const body = await readBody(c.req);
  if (r.name)
    throw new ApiError(405, "MethodNotAllowed", `POST is not supported on a named ${r.rt.resource}`);
  const obj = parseJson(body) as KObject;
  checkKind(r.rt, obj);
  const created = c.deps.registry.create(r.rt, r.namespace ?? obj?.metadata?.namespace, obj, {
    dryRun,
    manager: managerOf(c),
  });
  warn(res, writeWarnings(created));
  return sendJson(res, 201, created);
}

export async function replace(c: Call) {
  const { r, res, dryRun } = c;
  const { registry } = c.deps;
  const body = await readBody(c.req);
  if (!r.name) throw new ApiError(405, "MethodNotAllowed", "PUT needs an object name");
  const obj = parseJson(body) as KObject;
  checkKind(r.rt, obj);
  const old = registry.tryGet(r.rt, r.namespace, r.name);
  const updated = registry.update(r.rt, r.namespace, r.name, obj, {
    dryRun,
    subresource: r.subresource,
    manager: managerOf(c),
  });
  if (!r.subresource) warn(res, writeWarnings(updated, old));
  return sendJson(res, 200, updated);
}

export async function patch(c: Call) {
  const { r, res } = c;
  const body = await readBody(c.req);
  if (!r.name) throw new ApiError(405, "MethodNotAllowed", "PATCH needs an object name");
  const old = c.deps.registry.tryGet(r.rt, r.namespace, r.name);
  const patched = applied(c, r.name, body);
  if (!r.subresource) warn(res, writeWarnings(patched, old));
  return sendJson(res, 200, patched);
}

function applied(c: Call, name: string, body: string): KObject {
  const { r, req, q, dryRun } = c;
  const { registry } = c.deps;
  const ns = r.namespace;
  const type = patchTypeOf(req.headers["content-type"]);
  if (!type)
    throw new ApiError(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
    );
  if (type === "apply" && !q.get("fieldManager"))
    throw badRequest(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  const parsed = parsePatchBody(type, body);
  const manager = managerOf(c);
  // force is read as Go's strconv.ParseBool reads it (the Python client sends "True")
  const force = ["1", "t", "T", "true", "TRUE", "True"].includes(q.get("force") ?? "");
  const apply = type === "apply" ? { config: parsed, force } : undefined;
  const live = registry.tryGet(r.rt, ns, name);
  if (!live) {
    // Server-side apply creates what does not exist yet.
    if (type === "apply") {
      const obj = parsed as KObject;
      checkKind(r.rt, obj);
      return registry.create(
        r.rt,
        ns,
        { ...obj, metadata: { ...(obj.metadata ?? {}), name } },
        { dryRun, manager, apply },
      );
    }
    throw notFound(r.rt.resource, r.rt.group, name);
  }
  const result = applyPatch(live, type, parsed, r.rt);
  // A patch is applied to the version it read: no resourceVersion conflict unless the patch names one.
  const wanted = (parsed as KObject)?.metadata?.resourceVersion;
  const next = {
    ...result,
    metadata: { ...result.metadata, resourceVersion: wanted ?? live.metadata.resourceVersion },
  };
  return registry.update(r.rt, ns, name, next, { dryRun, subresource: r.subresource, manager, apply });
}
