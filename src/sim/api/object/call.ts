// What every handler of an object request is given (the request, its route, the cluster's parts),
// and the small answers they share: tables, lists, kind checks, POST-only subresources.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../core/clock.js";
import type { KObject, ResourceType } from "../../core/types.js";
import type { Store } from "../../store/store.js";
import type { LogSource, MetricsSource } from "../hooks.js";
import { parseJson, readBody, sendJson } from "../http.js";
import type { Registry } from "../registry.js";
import { apiVersionOf } from "../resources.js";
import type { Route } from "../route.js";
import { ApiError, badRequest } from "../status.js";
import { toTable } from "../table/index.js";

/** What the server asks of src/sim/auth: admit (or throw a 401/403 ApiError), and the reviews. */
export interface AccessGate {
  /** Who the request is from (its groups), once admitted. */
  admit(req: IncomingMessage, url: URL, upgrade?: boolean): { groups: string[] };
  handles(group: string, resource: string, subresource?: string): boolean;
  serve(
    req: IncomingMessage,
    resource: string,
    ns: string | undefined,
    name: string | undefined,
    body: unknown,
  ): unknown;
}

/** The parts of the cluster an object request reads or writes. */
export interface ObjectDeps {
  store: Store;
  registry: Registry;
  clock: Clock;
  logs?: LogSource;
  metrics?: MetricsSource;
  auth?: AccessGate;
}

export type ObjectRoute = Extract<Route, { type: "object" }>;

/** One request for an object, a list of them or a subresource. */
export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  r: ObjectRoute;
  q: URLSearchParams;
  method: string;
  dryRun: boolean;
  deps: ObjectDeps;
}

export type Handler = (c: Call) => unknown;

export function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? "";
  return accept.split(",")[0].includes("as=Table");
}

/** Objects as the Table kubectl prints; a watch sends the column definitions only first. */
export function tableOf(c: Call, objects: KObject[], withColumns = true) {
  const { clock, store, registry } = c.deps;
  const t = toTable(c.r.rt, objects, {
    now: clock.toWall(clock.now()),
    includeObject: (c.q.get("includeObject") as "None" | "Metadata" | "Object" | null) ?? "Metadata",
    resourceVersion: String(store.resourceVersion),
    printerColumns: registry.custom.served(c.r.rt)?.columns,
  });
  return withColumns ? t : { ...t, columnDefinitions: [] };
}

export function listOf(c: Call, items: KObject[]) {
  return {
    kind: `${c.r.rt.kind}List`,
    apiVersion: apiVersionOf(c.r.rt),
    metadata: { resourceVersion: String(c.deps.store.resourceVersion) },
    items,
  };
}

export function checkKind(rt: ResourceType, obj: KObject) {
  if (!obj || typeof obj !== "object" || Array.isArray(obj))
    throw badRequest("the object provided is not a JSON object");
  if (obj.kind && obj.kind !== rt.kind)
    throw badRequest(
      `the kind of the object (${obj.kind}) does not match the resource ${rt.resource} (kind ${rt.kind})`,
    );
  if (obj.apiVersion && obj.apiVersion !== apiVersionOf(rt))
    throw badRequest(
      `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersionOf(rt)})`,
    );
}

/** A subresource that only creates (bindings, evictions, reviews): its body in, 201 and the answer out. */
export function postOnly(serve: (c: Call, body: unknown) => unknown, where = ""): Handler {
  return async (c) => {
    if (c.method !== "POST")
      throw new ApiError(405, "MethodNotAllowed", `method ${c.method} is not supported${where}`);
    return sendJson(c.res, 201, serve(c, parseJson(await readBody(c.req))));
  };
}

/** Who a write is from, for managedFields: its fieldManager, else its User-Agent's product (fieldmanager's prefixFromUserAgent). */
export function managerOf(c: Call): string {
  return c.q.get("fieldManager") ?? (c.req.headers["user-agent"] ?? "").split("/")[0].slice(0, 128);
}
