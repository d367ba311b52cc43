// DELETE on a resource: one object (a Status once it is gone, the object while it terminates,
// and a pod always as itself), or a collection by its selectors.
import { parseJson, readBody, sendJson } from "../http.js";
import type { DeleteOptions } from "../registry.js";
import { badRequest } from "../status.js";
import { type Call, listOf } from "./call.js";

export async function remove(c: Call) {
  const { r, res, q } = c;
  const { registry } = c.deps;
  const ns = r.namespace;
  const opts = deleteOptions(await readBody(c.req), q);
  if (!r.name) {
    const items = registry.list(r.rt, ns, {
      labelSelector: q.get("labelSelector"),
      fieldSelector: q.get("fieldSelector"),
    });
    for (const o of items) registry.delete(r.rt, o.metadata.namespace, o.metadata.name!, opts);
    return sendJson(res, 200, listOf(c, items));
  }
  const { object, gone } = registry.delete(r.rt, ns, r.name, opts);
  if (gone && r.rt.kind !== "Pod") {
    return sendJson(res, 200, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: {
        name: r.name,
        group: r.rt.group || undefined,
        kind: r.rt.resource,
        uid: object.metadata.uid,
      },
    });
  }
  return sendJson(res, 200, object);
}

function deleteOptions(body: string, q: URLSearchParams): DeleteOptions {
  let o: Record<string, unknown> = {};
  if (body.trim()) {
    const parsed = parseJson(body);
    if (parsed && typeof parsed === "object") o = parsed as Record<string, unknown>;
  }
  const grace = q.get("gracePeriodSeconds") ?? (o.gracePeriodSeconds as number | undefined);
  const policy = (q.get("propagationPolicy") ??
    o.propagationPolicy ??
    (o.orphanDependents === true ? "Orphan" : undefined)) as DeleteOptions["propagationPolicy"];
  if (policy && !["Foreground", "Background", "Orphan"].includes(policy))
    throw badRequest(`invalid propagationPolicy "${policy}"`);
  return {
    gracePeriodSeconds: grace === undefined || grace === null ? undefined : Number(grace),
    propagationPolicy: policy,
    preconditions: o.preconditions as DeleteOptions["preconditions"],
    dryRun: q.getAll("dryRun").includes("All") || (Array.isArray(o.dryRun) && o.dryRun.includes("All")),
  };
}
