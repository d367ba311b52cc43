// RBAC's escalation check: a user may write a Role, or a binding to one, only if they already
// hold every permission it grants, or have the `escalate` (roles) or `bind` (bindings) verb on
// it. Otherwise a namespace admin could bind cluster-admin to themselves (kubernetes
// pkg/registry/rbac/validation/rule.go ConfirmNoEscalation, policy_comparator.go Covers,
// pkg/registry/rbac/rolebinding/policybased/storage.go).
import { AsyncLocalStorage } from "node:async_hooks";
import type { AdmissionRequest } from "../api/registry.js";
import { R } from "../api/resources.js";
import { ApiError } from "../api/status.js";
import type { Role, RoleBinding } from "../core/objects.js";
import type { Store } from "../store/store.js";
import type { Decision } from "./rbac.js";
import type { Attributes } from "./request-info.js";
import { type PolicyRule, toRule } from "./rules.js";
import { isPrivileged, type UserInfo } from "./user.js";

const RBAC = "rbac.authorization.k8s.io";

/** Who made the API request being served (none for the cluster's own controllers). */
export const requester = new AsyncLocalStorage<UserInfo>();

const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === "*" || x === v);

/** One atomic permission of a rule: a verb on one group/resource(/name), or on one URL. */
function atoms(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of r.verbs) {
    for (const url of r.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
    for (const group of r.apiGroups ?? [])
      for (const resource of r.resources ?? []) {
        const names = r.resourceNames?.length ? r.resourceNames : [undefined];
        for (const name of names)
          out.push({
            verbs: [verb],
            apiGroups: [group],
            resources: [resource],
            ...(name ? { resourceNames: [name] } : {}),
          });
      }
  }
  return out;
}

function covers(owner: PolicyRule, a: PolicyRule): boolean {
  if (!has(owner.verbs, a.verbs[0])) return false;
  if (a.nonResourceURLs) {
    const url = a.nonResourceURLs[0];
    return (owner.nonResourceURLs ?? []).some(
      (u) => u === "*" || u === url || (u.endsWith("*") && url.startsWith(u.slice(0, -1))),
    );
  }
  if (!has(owner.apiGroups, a.apiGroups![0])) return false;
  const res = a.resources![0];
  const sub = res.includes("/") ? res.slice(res.indexOf("/")) : "";
  if (!(owner.resources ?? []).some((r) => r === "*" || r === res || (sub && r === `*${sub}`))) return false;
  if (!owner.resourceNames?.length) return true;
  return !!a.resourceNames && owner.resourceNames.includes(a.resourceNames[0]);
}

const q = (xs: string[] | undefined) => `[${(xs ?? []).map((x) => JSON.stringify(x)).join(" ")}]`;

/** rbacv1helpers.CompactString of the missing rules, verbs of the same target merged. */
function describe(missing: PolicyRule[]): string {
  const merged = new Map<string, PolicyRule>();
  for (const m of missing) {
    const key = JSON.stringify([m.apiGroups, m.resources, m.resourceNames, m.nonResourceURLs]);
    const seen = merged.get(key);
    if (seen) seen.verbs.push(m.verbs[0]);
    else merged.set(key, { ...m, verbs: [...m.verbs] });
  }
  return [...merged.values()]
    .map((r) => {
      const parts = [
        r.apiGroups ? `APIGroups:${q(r.apiGroups)}` : "",
        r.resources ? `Resources:${q(r.resources)}` : "",
        r.resourceNames ? `ResourceNames:${q(r.resourceNames)}` : "",
        r.nonResourceURLs ? `NonResourceURLs:${q(r.nonResourceURLs)}` : "",
        `Verbs:${q(r.verbs)}`,
      ].filter(Boolean);
      return `{${parts.join(", ")}}`;
    })
    .join("\n");
}

export interface EscalationDeps {
  store: Store;
  authorize(a: Attributes): Decision;
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[] };
}

/** The admission plugin that refuses an RBAC write granting more than its author holds. */
export function escalationAdmission(deps: EscalationDeps) {
  return (req: AdmissionRequest): void => {
    if (req.rt.group !== RBAC) return;
    const user = requester.getStore();
    if (!user || isPrivileged(user)) return;
    const o = req.obj as Role & Partial<RoleBinding>;
    const ns = o.metadata.namespace ?? "";
    const binding = req.rt.kind.endsWith("Binding");
    const target = binding ? (o.roleRef ?? {}) : { kind: req.rt.kind, name: o.metadata.name };
    const verb = binding ? "bind" : "escalate";
    const resource = target.kind === "ClusterRole" ? "clusterroles" : "roles";
    const may = deps.authorize({
      user,
      verb,
      resourceRequest: true,
      path: "",
      apiGroup: RBAC,
      apiVersion: "v1",
      namespace: req.rt.kind.startsWith("Cluster") ? "" : ns,
      resource,
      subresource: "",
      name: String(target.name ?? ""),
    });
    if (may.allowed) return;
    let granted: unknown[] = o.rules ?? [];
    if (binding) {
      const role = deps.store.get(
        R(target.kind === "ClusterRole" ? "ClusterRole" : "Role"),
        target.kind === "ClusterRole" ? undefined : ns,
        String(target.name ?? ""),
      ) as Role | undefined;
      if (!role) return; // the authorizer reports a binding to a missing role when it is used
      granted = role.rules ?? [];
    }
    const held = deps.rulesFor(user, req.rt.kind.startsWith("Cluster") ? "" : ns).rules;
    const missing = granted
      .map(toRule)
      .filter((r): r is PolicyRule => !!r)
      .flatMap(atoms)
      .filter((a) => !held.some((h) => covers(h, a)));
    if (missing.length === 0) return;
    const qualified = `${req.rt.resource}.${RBAC}`;
    throw new ApiError(
      403,
      "Forbidden",
      `${qualified} "${o.metadata.name}" is forbidden: user "${user.name}" (groups=${q(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${describe(missing)}`,
      { name: o.metadata.name, group: RBAC, kind: req.rt.resource },
    );
  };
}
