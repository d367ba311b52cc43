// Table columns of RoleBindings and ClusterRoleBindings, as kubernetes
// pkg/printers/internalversion/printers.go prints them (roleBindingsColumnDefinitions).
import type { KObject } from "../types.js";
import { since } from "../api/table/duration.js";
import { AGE_COL, col, NAME_COL, type Printer } from "../api/table/types.js";

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

const subjectsOf = (o: KObject, kind: string) =>
  ((o.subjects ?? []) as Subject[])
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
  cells: (o, { now }) => [
    o.metadata.name ?? "",
    `${o.roleRef?.kind ?? ""}/${o.roleRef?.name ?? ""}`,
    since(o.metadata.creationTimestamp, now),
    subjectsOf(o, "User"),
    subjectsOf(o, "Group"),
    subjectsOf(o, "ServiceAccount"),
  ],
};
