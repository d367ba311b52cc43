// Parsing a Kubernetes API path into what it addresses.
import type { ResourceType } from "../core/types.js";
import { resourceByPath } from "./resources.js";
import { ApiError, notFound } from "./status.js";

export type Route =
  | { type: "version" }
  | { type: "core-versions" }
  | { type: "groups" }
  | { type: "group"; group: string }
  | { type: "resources"; group: string; version: string }
  | { type: "openapi-v2" }
  | { type: "health" }
  | {
      type: "object";
      rt: ResourceType;
      namespace?: string;
      name?: string;
      subresource?: string;
      watchPath: boolean;
    };

const NS_SUBRESOURCES = new Set(["status", "finalize"]);

export type ResourceLookup = (group: string, version: string, resource: string) => ResourceType | undefined;

/** `lookup` finds what a path names; the server passes one that also knows the CRDs' resources. */
export function parseRoute(pathname: string, lookup: ResourceLookup = resourceByPath): Route | undefined {
  const p = pathname.replace(/\/+$/, "") || "/";
  if (p === "/version") return { type: "version" };
  if (p === "/api") return { type: "core-versions" };
  if (p === "/apis") return { type: "groups" };
  if (p === "/openapi/v2") return { type: "openapi-v2" };
  if (p === "/healthz" || p === "/readyz" || p === "/livez") return { type: "health" };
  const segs = p.split("/").filter(Boolean).map(decodeURIComponent);
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === "api" && segs.length >= 2) {
    group = "";
    version = segs[1];
    rest = segs.slice(2);
  } else if (segs[0] === "apis" && segs.length >= 2) {
    group = segs[1];
    if (segs.length === 2) return { type: "group", group };
    version = segs[2];
    rest = segs.slice(3);
  } else return undefined;
  if (rest.length === 0) return { type: "resources", group, version };
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && !NS_SUBRESOURCES.has(rest[2])) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  if (extra.length) return undefined;
  const rt = lookup(group, version, resource);
  if (!rt) {
    throw new ApiError(
      404,
      "NotFound",
      `the server could not find the requested resource (${group ? `${resource}.${group}` : resource})`,
      {
        group: group || undefined,
        kind: resource,
      },
    );
  }
  if (subresource && !(rt.subresources ?? []).includes(subresource))
    throw notFound(`${rt.resource}/${subresource}`, rt.group, name);
  if (namespace && !rt.namespaced) return undefined;
  return { type: "object", rt, namespace, name, subresource, watchPath };
}
