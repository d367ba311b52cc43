// The 401 and 403 answers, worded as kube-apiserver words them
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage, and
// apimachinery's errors.NewForbidden).
import { ApiError } from "../api/status.js";
import type { Attributes } from "./request-info.js";

export const unauthorized = () => new ApiError(401, "Unauthorized", "Unauthorized");

export function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.resourceRequest) return `User "${user}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : "at the cluster scope";
  return `User "${user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${where}`;
}

export function forbidden(a: Attributes, reason = ""): ApiError {
  const msg = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  if (!a.resourceRequest) return new ApiError(403, "Forbidden", `forbidden: ${msg}`, {});
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  const head = a.name ? `${qualified} "${a.name}"` : qualified;
  return new ApiError(403, "Forbidden", `${head} is forbidden: ${msg}`, {
    ...(a.name ? { name: a.name } : {}),
    ...(a.apiGroup ? { group: a.apiGroup } : {}),
    kind: a.resource,
  });
}
