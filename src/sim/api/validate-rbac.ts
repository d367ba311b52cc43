// Validation of the RBAC kinds, as kubernetes pkg/apis/rbac/validation/validation.go does it:
// names are path segments (so "system:discovery" is valid), bindings need a roleRef that never
// changes, and a ClusterRoleBinding's ServiceAccount subjects need a namespace.

import type { KObject } from "../core/types.js";
import type { StatusCause } from "./status.js";

export const RBAC_KINDS = new Set(["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]);

type J = Record<string, unknown>;

/** path.IsValidPathSegmentName */
export function rbacNameCauses(name: string): StatusCause[] {
  const bad =
    name === "." || name === ".."
      ? `may not be '${name}'`
      : name.includes("/")
        ? "may not contain '/'"
        : name.includes("%")
          ? "may not contain '%'"
          : undefined;
  return bad ? [{ field: "metadata.name", message: `Invalid value: "${name}": ${bad}` }] : [];
}

export function validateRbac(o: KObject): StatusCause[] {
  if (o.kind !== "RoleBinding" && o.kind !== "ClusterRoleBinding") return [];
  const causes: StatusCause[] = [];
  const ref = (o.roleRef ?? {}) as J;
  const kinds = o.kind === "RoleBinding" ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(String(ref.kind ?? "")))
    causes.push({
      field: "roleRef.kind",
      reason: "FieldValueNotSupported",
      message: `Unsupported value: "${ref.kind ?? ""}": supported values: ${kinds.map((k) => `"${k}"`).join(", ")}`,
    });
  if (ref.apiGroup !== "rbac.authorization.k8s.io")
    causes.push({
      field: "roleRef.apiGroup",
      reason: "FieldValueNotSupported",
      message: `Unsupported value: "${ref.apiGroup ?? ""}": supported values: "rbac.authorization.k8s.io"`,
    });
  if (!ref.name)
    causes.push({ field: "roleRef.name", reason: "FieldValueRequired", message: "Required value" });
  const subjects = Array.isArray(o.subjects) ? (o.subjects as J[]) : [];
  subjects.forEach((s, i) => {
    if (!s.name)
      causes.push({ field: `subjects[${i}].name`, reason: "FieldValueRequired", message: "Required value" });
    if (!["User", "Group", "ServiceAccount"].includes(String(s.kind ?? "")))
      causes.push({
        field: `subjects[${i}].kind`,
        reason: "FieldValueNotSupported",
        message: `Unsupported value: "${s.kind ?? ""}": supported values: "ServiceAccount", "User", "Group"`,
      });
    if (s.kind === "ServiceAccount" && o.kind === "ClusterRoleBinding" && !s.namespace)
      causes.push({
        field: `subjects[${i}].namespace`,
        reason: "FieldValueRequired",
        message: "Required value",
      });
  });
  return causes;
}

export function validateRbacUpdate(old: KObject, next: KObject): StatusCause[] {
  if (old.kind !== "RoleBinding" && old.kind !== "ClusterRoleBinding") return [];
  if (JSON.stringify(old.roleRef) === JSON.stringify(next.roleRef)) return [];
  return [
    {
      field: "roleRef",
      message: `Invalid value: ${JSON.stringify(next.roleRef)}: cannot change roleRef`,
    },
  ];
}
