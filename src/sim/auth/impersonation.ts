// Impersonate-User / Impersonate-Group / Impersonate-Uid / Impersonate-Extra-*: the requester
// must be allowed the `impersonate` verb on users, groups, serviceaccounts, uids or userextras
// for each value (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go).
import type { IncomingHttpHeaders } from "node:http";
import { badRequest } from "../api/status.js";
import type { Attributes } from "./request-info.js";
import {
  AUTHENTICATED,
  serviceAccountUser,
  splitServiceAccount,
  UNAUTHENTICATED,
  type UserInfo,
} from "./user.js";

const values = (h: IncomingHttpHeaders, name: string): string[] => {
  const v = h[name];
  return v === undefined
    ? []
    : Array.isArray(v)
      ? v
      : v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
};

/** The user a request acts as, after checking each impersonation with `authorize`. */
export function impersonate(
  requester: UserInfo,
  headers: IncomingHttpHeaders,
  authorize: (a: Attributes) => void,
): UserInfo {
  const userName = values(headers, "impersonate-user")[0];
  const groups = values(headers, "impersonate-group");
  const uid = values(headers, "impersonate-uid")[0];
  const extraKeys = Object.keys(headers).filter((k) => k.startsWith("impersonate-extra-"));
  if (!userName) {
    if (groups.length || uid || extraKeys.length)
      throw badRequest(`requested impersonation of groups, uid or extra without impersonating a user`);
    return requester;
  }
  const acting = (resource: string, name: string, namespace = "", subresource = ""): Attributes => ({
    user: requester,
    verb: "impersonate",
    resourceRequest: true,
    path: "",
    apiGroup: resource === "userextras" || resource === "uids" ? "authentication.k8s.io" : "",
    apiVersion: "",
    namespace,
    resource,
    subresource,
    name,
  });
  const sa = splitServiceAccount(userName);
  let user: UserInfo;
  if (sa) {
    authorize(acting("serviceaccounts", sa[1], sa[0]));
    user = {
      ...serviceAccountUser(sa[0], sa[1]),
      groups: serviceAccountUser(sa[0], sa[1]).groups.slice(0, 2),
    };
  } else {
    authorize(acting("users", userName));
    user = { name: userName, groups: [] };
  }
  for (const g of groups) {
    authorize(acting("groups", g));
    if (!user.groups.includes(g)) user.groups.push(g);
  }
  if (uid) {
    authorize(acting("uids", uid));
    user.uid = uid;
  }
  for (const k of extraKeys) {
    const key = decodeURIComponent(k.slice("impersonate-extra-".length));
    user.extra = user.extra ?? {};
    for (const v of values(headers, k)) {
      authorize(acting("userextras", v, "", key));
      user.extra[key] = [...(user.extra[key] ?? []), v];
    }
  }
  const implied = user.name === "system:anonymous" ? UNAUTHENTICATED : AUTHENTICATED;
  if (!user.groups.includes(implied)) user.groups.push(implied);
  return user;
}
