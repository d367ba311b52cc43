// Requests for objects, lists and subresources, as tables of handlers: the resources served by a
// handler of their own (computed metrics, the auth layer's reviews and token requests), then
// subresources, then resources, and last the verbs of ordinary storage.
import { bind } from "../binding.js";
import { evict } from "../eviction.js";
import { isMetrics } from "../resources.js";
import { ApiError } from "../status.js";
import { type Call, type Handler, postOnly } from "./call.js";
import { componentStatusesOf, metrics } from "./computed.js";
import { remove } from "./delete.js";
import { log } from "./log.js";
import { read } from "./read.js";
import { scale } from "./scale.js";
import { create, patch, replace } from "./write.js";

export type { AccessGate, Call, ObjectDeps, ObjectRoute } from "./call.js";

const binding = postOnly((c, body) => bind(c.deps.registry, c.r.namespace!, c.r.name, body));

/** By subresource (a route names only the subresources its resource declares). */
const SUBRESOURCES = new Map<string, Handler>([
  ["log", log],
  [
    "exec",
    () => {
      throw new ApiError(400, "BadRequest", "exec needs a WebSocket (v5.channel.k8s.io) upgrade");
    },
  ],
  ["scale", scale],
  ["binding", binding],
  [
    "eviction",
    postOnly((c, body) => evict(c.deps.registry, c.r.namespace!, c.r.name!, body, c.dryRun), " on eviction"),
  ],
]);

/** By resource, whatever the verb. */
const RESOURCES = new Map<string, Handler>([
  ["bindings", binding],
  ["componentstatuses", componentStatusesOf],
]);

/** By verb: the storage every other resource (and `status`, `finalize`) is served by. */
const VERBS = new Map<string, Handler>([
  ["GET", read],
  ["POST", create],
  ["PUT", replace],
  ["PATCH", patch],
  ["DELETE", remove],
]);

/** What the auth layer serves itself: token requests and reviews, created and answered at once. */
const review = postOnly((c, body) =>
  c.deps.auth!.serve(c.req, c.r.rt.resource, c.r.namespace, c.r.name, body),
);

export function serveObject(c: Call) {
  const { r } = c;
  if (isMetrics(r.rt)) return metrics(c);
  if (c.deps.auth?.handles(r.rt.group, r.rt.resource, r.subresource)) return review(c);
  const handler =
    (r.subresource === undefined ? undefined : SUBRESOURCES.get(r.subresource)) ??
    RESOURCES.get(r.rt.resource) ??
    VERBS.get(c.method);
  if (!handler) throw new ApiError(405, "MethodNotAllowed", `method ${c.method} is not supported`);
  return handler(c);
}
