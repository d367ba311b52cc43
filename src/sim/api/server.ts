// The embedded cluster's HTTP API server: routes each request to discovery, CRUD, watch or a
// subresource. Every failure becomes a Status answer; nothing a client sends can crash it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Clock } from "../core/clock.js";
import type { Pod } from "../core/objects.js";
import type { KObject, ResourceType } from "../core/types.js";
import type { Store } from "../store/store.js";
import { bind } from "./binding.js";
import { COMPONENT_STATUS_WARNING, componentStatuses } from "./componentstatus.js";
import { apiGroup, apiGroupList, coreVersions, resourceList, versionInfo } from "./discovery.js";
import { evict } from "./eviction.js";
import type { ExecHandler, LogSource, MetricsSource } from "./hooks.js";
import { parseJson, readBody, sendError, sendJson, sendText } from "./http.js";
import { applyPatch, parsePatchBody, patchTypeOf } from "./patch/index.js";
import type { DeleteOptions, Registry } from "./registry.js";
import { apiVersionOf, isMetrics, resourceByPath } from "./resources.js";
import { parseRoute, type Route } from "./route.js";
import {
  fieldMatches,
  type LabelSelectorSpec,
  matches,
  parseFieldSelector,
  parseLabelSelector,
  selectorToString,
} from "./selectors.js";
import { ApiError, badRequest, notFound } from "./status.js";
import { toTable } from "./table/index.js";
import { warningHeaders, writeWarnings } from "./warnings.js";
import { serveWatch } from "./watch.js";

/** What the scale subresource reads of its object: a workload, or a custom resource with scale. */
interface Scalable extends KObject {
  spec?: { replicas?: number; selector?: LabelSelectorSpec; [field: string]: unknown };
  status?: { replicas?: number; [field: string]: unknown };
}

export interface ApiServerDeps {
  store: Store;
  registry: Registry;
  clock: Clock;
  logs?: LogSource;
  exec?: ExecHandler;
  metrics?: MetricsSource;
  /** Serve HTTPS with this certificate; clients may present one signed by `ca`. */
  tls?: { key: string; cert: string; ca: string };
  /** Authentication and authorization of every request, before it is routed. */
  auth?: AccessGate;
  /** Upgrade requests (exec over WebSocket) are handed here. */
  onUpgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer, route: Route & { type: "object" }) => void;
}

type Obj = Extract<Route, { type: "object" }>;

/** A write's warnings, as the Warning headers kubectl prints. */
function warn(res: ServerResponse, warnings: string[]) {
  if (warnings.length) res.setHeader("Warning", warningHeaders(warnings));
}

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

export class ApiServer {
  private server?: Server;
  private readonly sockets = new Set<Duplex>();

  constructor(private readonly deps: ApiServerDeps) {}

  async listen(port = 0, host = "127.0.0.1"): Promise<number> {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((e) => sendError(res, e));
    };
    const tls = this.deps.tls;
    // requestCert without rejectUnauthorized: a bad client certificate is a 401, as kube-apiserver answers
    const server = tls
      ? createTlsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, handler)
      : createServer(handler);
    server.on("upgrade", (req, socket, head) => this.upgrade(req, socket, head));
    server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
    server.keepAliveTimeout = 30_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((r) => s.close(() => r()));
  }

  /** Built-in resources first, then those the CRDs serve. */
  private readonly lookup = (g: string, v: string, r: string) =>
    resourceByPath(g, v, r) ?? this.deps.registry.custom.byPath(g, v, r);

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      this.deps.auth?.admit(req, url, true);
      const route = parseRoute(url.pathname);
      if (route?.type === "object" && route.subresource === "exec" && this.deps.onUpgrade) {
        this.deps.onUpgrade(req, socket, head, route);
        return;
      }
      socket.end(
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nupgrade is served only for pods/exec\n",
      );
    } catch (e) {
      if (e instanceof ApiError && (e.code === 401 || e.code === 403)) {
        const body = JSON.stringify(e.toStatus());
        const status = e.code === 401 ? "Unauthorized" : "Forbidden";
        socket.end(
          `HTTP/1.1 ${e.code} ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        return;
      }
      const msg = e instanceof ApiError ? e.message : "bad upgrade request";
      socket.end(`HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n${msg}\n`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://x");
    const q = url.searchParams;
    const user = this.deps.auth?.admit(req, url);
    const route = parseRoute(url.pathname, this.lookup);
    if (!route) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    const custom = this.deps.registry.custom.resources();
    switch (route.type) {
      case "version":
        return sendJson(
          res,
          200,
          versionInfo(
            this.deps.clock.speed,
            this.deps.clock.now(),
            !user || user.groups.includes("system:masters"),
          ),
        );
      case "core-versions":
        return sendJson(res, 200, coreVersions());
      case "groups":
        return sendJson(res, 200, apiGroupList(custom));
      case "group": {
        const g = apiGroup(route.group, custom);
        if (!g) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
        return sendJson(res, 200, g);
      }
      case "resources": {
        const list = resourceList(route.group, route.version, custom);
        if (!list) throw new ApiError(404, "NotFound", "the server could not find the requested resource");
        return sendJson(res, 200, list);
      }
      case "openapi-v2":
        // An empty protobuf-typed body makes both kubectl versions skip client-side validation.
        res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": 0 });
        return res.end();
      case "health":
        return sendText(res, 200, "ok");
      case "object":
        return this.object(req, res, route, q);
    }
  }

  private async object(req: IncomingMessage, res: ServerResponse, r: Obj, q: URLSearchParams) {
    const { registry } = this.deps;
    const method = req.method ?? "GET";
    const ns = r.namespace ?? (r.rt.kind === "Namespace" ? undefined : undefined);
    const dryRun = q.getAll("dryRun").includes("All");
    if (isMetrics(r.rt)) return this.metrics(res, r, q);
    const auth = this.deps.auth;
    if (auth?.handles(r.rt.group, r.rt.resource, r.subresource)) {
      if (method !== "POST") throw new ApiError(405, "MethodNotAllowed", `method ${method} is not supported`);
      return sendJson(res, 201, auth.serve(req, r.rt.resource, ns, r.name, parseJson(await readBody(req))));
    }
    if (r.subresource === "log") return this.log(req, res, r, q);
    if (r.subresource === "exec")
      throw new ApiError(400, "BadRequest", "exec needs a WebSocket (v5.channel.k8s.io) upgrade");
    if (r.subresource === "scale") return this.scale(req, res, r);
    if (r.rt.resource === "bindings" || r.subresource === "binding") {
      if (method !== "POST") throw new ApiError(405, "MethodNotAllowed", `method ${method} is not supported`);
      return sendJson(res, 201, bind(registry, ns!, r.name, parseJson(await readBody(req))));
    }
    if (r.rt.resource === "componentstatuses") return this.componentStatuses(req, res, r, q);
    if (r.subresource === "eviction") {
      if (method !== "POST")
        throw new ApiError(405, "MethodNotAllowed", `method ${method} is not supported on eviction`);
      return sendJson(res, 201, evict(registry, ns!, r.name!, parseJson(await readBody(req)), dryRun));
    }

    if (method === "GET") {
      if (r.watchPath || q.get("watch") === "true" || q.get("watch") === "1") {
        return serveWatch(this.deps.store, req, res, {
          rt: r.rt,
          namespace: ns,
          name: r.name,
          labelSelector: q.get("labelSelector"),
          fieldSelector: r.name ? `metadata.name=${r.name}` : q.get("fieldSelector"),
          resourceVersion: q.get("resourceVersion"),
          timeoutSeconds: Number(q.get("timeoutSeconds") ?? 0) || undefined,
          allowBookmarks: q.get("allowWatchBookmarks") === "true",
          render: wantsTable(req)
            ? (o, first) => this.table(r.rt, [registry.read(r.rt, o)], q, first)
            : (o) => registry.read(r.rt, o), // the version asked for (and a CRD's schema defaults)
        });
      }
      if (r.name) {
        const o = registry.get(r.rt, ns, r.name);
        return sendJson(res, 200, wantsTable(req) ? this.table(r.rt, [o], q) : o);
      }
      const items = registry.list(r.rt, ns, {
        labelSelector: q.get("labelSelector"),
        fieldSelector: q.get("fieldSelector"),
      });
      if (wantsTable(req)) return sendJson(res, 200, this.table(r.rt, items, q));
      return sendJson(res, 200, this.listOf(r.rt, items));
    }
    const body = method === "DELETE" || method === "GET" ? "" : await readBody(req);
    switch (method) {
      case "POST": {
        if (r.name)
          throw new ApiError(405, "MethodNotAllowed", `POST is not supported on a named ${r.rt.resource}`);
        const obj = parseJson(body) as KObject;
        checkKind(r.rt, obj);
        const created = registry.create(r.rt, ns ?? obj?.metadata?.namespace, obj, { dryRun });
        warn(res, writeWarnings(created));
        return sendJson(res, 201, created);
      }
      case "PUT": {
        if (!r.name) throw new ApiError(405, "MethodNotAllowed", "PUT needs an object name");
        const obj = parseJson(body) as KObject;
        checkKind(r.rt, obj);
        const old = registry.tryGet(r.rt, ns, r.name);
        const updated = registry.update(r.rt, ns, r.name, obj, { dryRun, subresource: r.subresource });
        if (!r.subresource) warn(res, writeWarnings(updated, old));
        return sendJson(res, 200, updated);
      }
      case "PATCH": {
        if (!r.name) throw new ApiError(405, "MethodNotAllowed", "PATCH needs an object name");
        const old = registry.tryGet(r.rt, ns, r.name);
        const patched = this.patch(req, r, ns, body, dryRun, q);
        if (!r.subresource) warn(res, writeWarnings(patched, old));
        return sendJson(res, 200, patched);
      }
      case "DELETE": {
        const opts = deleteOptions(await readBody(req), q);
        if (!r.name) {
          const items = registry.list(r.rt, ns, {
            labelSelector: q.get("labelSelector"),
            fieldSelector: q.get("fieldSelector"),
          });
          for (const o of items) registry.delete(r.rt, o.metadata.namespace, o.metadata.name!, opts);
          return sendJson(res, 200, this.listOf(r.rt, items));
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
      default:
        throw new ApiError(405, "MethodNotAllowed", `method ${method} is not supported`);
    }
  }

  private patch(
    req: IncomingMessage,
    r: Obj,
    ns: string | undefined,
    body: string,
    dryRun: boolean,
    q: URLSearchParams,
  ): KObject {
    const { registry } = this.deps;
    const type = patchTypeOf(req.headers["content-type"]);
    if (!type)
      throw new ApiError(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
    const parsed = parsePatchBody(type, body);
    const live = registry.tryGet(r.rt, ns, r.name!);
    if (!live) {
      // Server-side apply creates what does not exist yet.
      if (type === "apply") {
        const obj = parsed as KObject;
        checkKind(r.rt, obj);
        return registry.create(
          r.rt,
          ns,
          { ...obj, metadata: { ...(obj.metadata ?? {}), name: r.name } },
          { dryRun },
        );
      }
      throw notFound(r.rt.resource, r.rt.group, r.name!);
    }
    if (type === "apply" && !q.get("fieldManager"))
      throw badRequest(
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      );
    const patched = applyPatch(live, type, parsed, r.rt);
    // A patch is applied to the version it read: no resourceVersion conflict unless the patch names one.
    const wanted = (parsed as KObject)?.metadata?.resourceVersion;
    const next = {
      ...patched,
      metadata: { ...patched.metadata, resourceVersion: wanted ?? live.metadata.resourceVersion },
    };
    return registry.update(r.rt, ns, r.name!, next, { dryRun, subresource: r.subresource });
  }

  private scale(req: IncomingMessage, res: ServerResponse, r: Obj) {
    return (async () => {
      const { registry } = this.deps;
      const method = req.method ?? "GET";
      const live = registry.get(r.rt, r.namespace, r.name!) as Scalable;
      const toScale = (o: Scalable) => ({
        kind: "Scale",
        apiVersion: "autoscaling/v1",
        metadata: {
          name: o.metadata.name,
          namespace: o.metadata.namespace,
          uid: o.metadata.uid,
          resourceVersion: o.metadata.resourceVersion,
          creationTimestamp: o.metadata.creationTimestamp,
        },
        spec: { replicas: o.spec?.replicas ?? 0 },
        status: {
          replicas: o.status?.replicas ?? 0,
          // a ReplicationController's selector is a plain label map
          selector: selectorToString(
            r.rt.kind === "ReplicationController"
              ? { matchLabels: o.spec?.selector as Record<string, string> | undefined }
              : o.spec?.selector,
          ),
        },
      });
      if (method === "GET") return sendJson(res, 200, toScale(live));
      const body = await readBody(req);
      let scale: Scalable;
      if (method === "PUT") scale = parseJson(body) as Scalable;
      else if (method === "PATCH") {
        const type = patchTypeOf(req.headers["content-type"]) ?? "merge";
        scale = applyPatch(
          toScale(live) as KObject,
          type === "apply" ? "merge" : type,
          parsePatchBody(type, body),
          SCALE_RT,
        ) as Scalable;
      } else throw new ApiError(405, "MethodNotAllowed", `method ${method} is not supported on scale`);
      // what the client sent, checked before it is stored
      const replicas: unknown = scale?.spec?.replicas;
      if (typeof replicas !== "number" || replicas < 0 || !Number.isInteger(replicas))
        throw new ApiError(
          422,
          "Invalid",
          `Scale.autoscaling "${r.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`,
        );
      const rv = scale.metadata?.resourceVersion;
      const updated = registry.update(r.rt, r.namespace, r.name!, {
        ...live,
        metadata: { ...live.metadata, resourceVersion: rv || live.metadata.resourceVersion },
        spec: { ...live.spec, replicas },
      });
      return sendJson(res, 200, toScale(updated as Scalable));
    })();
  }

  private log(req: IncomingMessage, res: ServerResponse, r: Obj, q: URLSearchParams) {
    const pod = this.deps.registry.get(r.rt, r.namespace, r.name!) as Pod;
    const containers: string[] = (pod.spec?.containers ?? []).map((c: { name: string }) => c.name);
    const container =
      q.get("container") ??
      (containers.length === 1
        ? containers[0]
        : (pod.metadata.annotations?.["kubectl.kubernetes.io/default-container"] ?? ""));
    if (!container)
      throw badRequest(
        `a container name must be specified for pod ${r.name}, choose one of: [${containers.join(" ")}]`,
      );
    // init containers have logs too (kubectl logs POD -c INIT)
    const inits: string[] = (pod.spec?.initContainers ?? []).map((c: { name: string }) => c.name);
    if (!containers.includes(container) && !inits.includes(container))
      throw badRequest(`container ${container} is not valid for pod ${r.name}`);
    const src = this.deps.logs;
    if (!src) return sendText(res, 200, "");
    const tail = q.get("tailLines");
    const { lines, follow } = src.logs({
      pod,
      container,
      tailLines: tail === null ? undefined : Number(tail),
      sinceSeconds: q.get("sinceSeconds") ? Number(q.get("sinceSeconds")) : undefined,
      sinceTime: q.get("sinceTime") ?? undefined,
      previous: q.get("previous") === "true",
      timestamps: q.get("timestamps") === "true",
    });
    if (q.get("follow") !== "true" || !follow) return sendText(res, 200, lines.map((l) => `${l}\n`).join(""));
    res.writeHead(200, { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" });
    for (const l of lines) res.write(`${l}\n`);
    const stop = follow((l) => res.write(`${l}\n`));
    req.on("close", stop);
  }

  /** Computed on every read, like metrics; kube-apiserver answers with a deprecation warning. */
  private componentStatuses(req: IncomingMessage, res: ServerResponse, r: Obj, q: URLSearchParams) {
    if (req.method !== "GET")
      throw new ApiError(405, "MethodNotAllowed", `method ${req.method} is not supported`);
    res.setHeader("Warning", COMPONENT_STATUS_WARNING);
    const items = componentStatuses(r.name);
    if (wantsTable(req)) return sendJson(res, 200, this.table(r.rt, items, q));
    if (r.name) return sendJson(res, 200, items[0]);
    return sendJson(res, 200, { kind: "ComponentStatusList", apiVersion: "v1", metadata: {}, items });
  }

  private metrics(res: ServerResponse, r: Obj, q: URLSearchParams) {
    const src = this.deps.metrics;
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

  private listOf(rt: ResourceType, items: KObject[]) {
    return {
      kind: `${rt.kind}List`,
      apiVersion: apiVersionOf(rt),
      metadata: { resourceVersion: String(this.deps.store.resourceVersion) },
      items,
    };
  }

  private table(rt: ResourceType, objects: KObject[], q: URLSearchParams, withColumns = true) {
    const t = toTable(rt, objects, {
      now: this.deps.clock.toWall(this.deps.clock.now()),
      includeObject: (q.get("includeObject") as "None" | "Metadata" | "Object" | null) ?? "Metadata",
      resourceVersion: String(this.deps.store.resourceVersion),
      printerColumns: this.deps.registry.custom.served(rt)?.columns,
    });
    return withColumns ? t : { ...t, columnDefinitions: [] };
  }
}

const SCALE_RT: ResourceType = {
  group: "autoscaling",
  version: "v1",
  resource: "scale",
  kind: "Scale",
  singular: "scale",
  namespaced: true,
  verbs: [],
};

function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? "";
  return accept.split(",")[0].includes("as=Table");
}

function checkKind(rt: ResourceType, obj: KObject) {
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
