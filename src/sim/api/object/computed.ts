// Resources computed when read rather than stored: metrics.k8s.io's node and pod metrics, and
// component statuses (which kube-apiserver answers with a deprecation warning).
import { COMPONENT_STATUS_WARNING, componentStatuses } from "../componentstatus.js";
import { sendJson } from "../http.js";
import { apiVersionOf } from "../resources.js";
import { fieldMatches, matches, parseFieldSelector, parseLabelSelector } from "../selectors.js";
import { ApiError, notFound } from "../status.js";
import { type Call, tableOf, wantsTable } from "./call.js";

export function metrics(c: Call) {
  const { res, r, q } = c;
  const src = c.deps.metrics;
  const all = !src ? [] : r.rt.kind === "NodeMetrics" ? src.nodeMetrics() : src.podMetrics(r.namespace);
  const labels = parseLabelSelector(q.get("labelSelector"));
  const fields = parseFieldSelector(q.get("fieldSelector"));
  const items = all.filter((m) => matches(labels, m.metadata.labels) && fieldMatches(fields, m));
  if (r.name) {
    const one = items.find((m) => m.metadata.name === r.name);
    if (!one) throw notFound(r.rt.resource, r.rt.group, r.name);
    return sendJson(res, 200, one);
  }
  return sendJson(res, 200, {
    kind: `${r.rt.kind}List`,
    apiVersion: apiVersionOf(r.rt),
    metadata: {},
    items,
  });
}

export function componentStatusesOf(c: Call) {
  const { req, res, r } = c;
  if (c.method !== "GET") throw new ApiError(405, "MethodNotAllowed", `method ${c.method} is not supported`);
  res.setHeader("Warning", COMPONENT_STATUS_WARNING);
  const items = componentStatuses(r.name);
  if (wantsTable(req)) return sendJson(res, 200, tableOf(c, items));
  if (r.name) return sendJson(res, 200, items[0]);
  return sendJson(res, 200, { kind: "ComponentStatusList", apiVersion: "v1", metadata: {}, items });
}
