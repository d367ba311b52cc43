// Table columns of RoleBindings and ClusterRoleBindings, as kubernetes
// pkg/printers/internalversion/printers.go prints them (roleBindingsColumnDefinitions).

import type { RoleBinding } from "../../core/objects.js";
import { since } from "./duration.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";

const subjectsOf = (b: RoleBinding, kind: string) =>
  (b.subjects ?? [])
    .filter((s) => s.kind === kind)
    .map((s) => (kind === "ServiceAccount" ? `${s.namespace ?? ""}/${s.name}` : (s.name ?? "")))
    .join(", ");

export const bindingPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Role",
      "string",
      "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
    ),
    AGE_COL,
    col("Users", "string", "Users in the roleBinding", { p: 1 }),
    col("Groups", "string", "Groups in the roleBinding", { p: 1 }),
    col("ServiceAccounts", "string", "ServiceAccounts in the roleBinding", { p: 1 }),
  ],
  cells: (o, { now }) => {
    const b = o as RoleBinding;
    return [
      b.metadata.name ?? "",
      `${b.roleRef?.kind ?? ""}/${b.roleRef?.name ?? ""}`,
      since(b.metadata.creationTimestamp, now),
      subjectsOf(b, "User"),
      subjectsOf(b, "Group"),
      subjectsOf(b, "ServiceAccount"),
    ];
  },
};
