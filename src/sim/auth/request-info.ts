// What a request asks to do, in the terms authorization speaks: verb, API group, resource,
// subresource, namespace and name, or a non-resource path. The rules follow
// k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (RequestInfoFactory.NewRequestInfo).
import type { UserInfo } from "./user.js";

export interface Attributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const NS_SUBRESOURCES = new Set(["status", "finalize"]);
const SPECIAL_VERBS = new Set(["proxy", "watch"]);
const METHOD_VERBS: Record<string, string> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

export function requestAttributes(user: UserInfo, method: string, url: URL): Attributes {
  const path = url.pathname;
  const base: Attributes = {
    user,
    verb: method.toLowerCase(),
    resourceRequest: false,
    path,
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
  };
  let parts = path
    .replace(/^\/+|\/+$/g, "")
    .split("/")
    .filter(Boolean)
    .map(safeDecode);
  if (parts.length < 3 || (parts[0] !== "api" && parts[0] !== "apis")) return base;
  const info = { ...base, resourceRequest: true };
  const prefix = parts[0];
  parts = parts.slice(1);
  if (prefix === "apis") {
    if (parts.length < 3) return base; // /apis/GROUP/VERSION is discovery
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  if (SPECIAL_VERBS.has(parts[0])) {
    if (parts.length < 2) return base;
    info.verb = parts[0];
    parts = parts.slice(1);
  } else info.verb = METHOD_VERBS[method.toUpperCase()] ?? "";
  if (parts[0] === "namespaces") {
    if (parts.length > 1) {
      info.namespace = parts[1];
      // namespaces/NAME/status is the namespace's own subresource, not a resource in it
      if (parts.length > 2 && !NS_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && info.verb !== "proxy") info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];
  const q = url.searchParams;
  if (!info.name && info.verb === "get") {
    info.verb = ["true", "1"].includes(q.get("watch") ?? "") ? "watch" : "list";
    // a list narrowed to one name by field selector is authorized for that name
    const only = /^metadata\.name==?([^,=!]+)$/.exec(q.get("fieldSelector") ?? "");
    if (only) info.name = only[1];
  }
  if (!info.name && info.verb === "delete") info.verb = "deletecollection";
  return info;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
