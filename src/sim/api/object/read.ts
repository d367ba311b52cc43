// GET on a resource: a watch stream, one object, or a list (as JSON or as kubectl's Table).
import { sendJson } from "../http.js";
import { serveWatch } from "../watch.js";
import { type Call, listOf, tableOf, wantsTable } from "./call.js";

export function read(c: Call) {
  const { req, res, r, q } = c;
  const { registry, store } = c.deps;
  const ns = r.namespace;
  if (r.watchPath || q.get("watch") === "true" || q.get("watch") === "1") {
    return serveWatch(store, req, res, {
      rt: r.rt,
      namespace: ns,
      name: r.name,
      labelSelector: q.get("labelSelector"),
      fieldSelector: r.name ? `metadata.name=${r.name}` : q.get("fieldSelector"),
      resourceVersion: q.get("resourceVersion"),
      timeoutSeconds: Number(q.get("timeoutSeconds") ?? 0) || undefined,
      allowBookmarks: q.get("allowWatchBookmarks") === "true",
      render: wantsTable(req)
        ? (o, first) => tableOf(c, [registry.read(r.rt, o)], first)
        : (o) => registry.read(r.rt, o), // the version asked for (and a CRD's schema defaults)
    });
  }
  if (r.name) {
    const o = registry.get(r.rt, ns, r.name);
    return sendJson(res, 200, wantsTable(req) ? tableOf(c, [o]) : o);
  }
  const items = registry.list(r.rt, ns, {
    labelSelector: q.get("labelSelector"),
    fieldSelector: q.get("fieldSelector"),
  });
  return sendJson(res, 200, wantsTable(req) ? tableOf(c, items) : listOf(c, items));
}
