// The RBAC authorizer: the rules of every ClusterRoleBinding, and of every RoleBinding in the
// request's namespace, whose subjects name the user, visited until one allows the request
// (kubernetes plugin/pkg/auth/authorizer/rbac/rbac.go and pkg/registry/rbac/validation/rule.go).
import { R } from "../api/resources.js";
import type { RoleBinding } from "../core/objects.js";
import type { Store } from "../store/store.js";
import type { Attributes } from "./request-info.js";
import { type PolicyRule, ruleAllows, toRule } from "./rules.js";
import { splitServiceAccount, type UserInfo } from "./user.js";

export interface Decision {
  allowed: boolean;
  /** "RBAC: allowed by ..." or the errors met on the way (a binding to a missing role). */
  reason: string;
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

export interface Visit {
  /** "ClusterRoleBinding \"x\" of ClusterRole \"y\" to Group \"z\"" */
  source: string;
  rules: PolicyRule[];
}

function appliesTo(user: UserInfo, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case "User":
      return s.name === user.name;
    case "Group":
      return !!s.name && user.groups.includes(s.name);
    case "ServiceAccount": {
      // a RoleBinding's ServiceAccount without a namespace is one of the binding's namespace
      const ns = s.namespace || bindingNamespace;
      const sa = splitServiceAccount(user.name);
      return !!ns && !!sa && sa[0] === ns && sa[1] === s.name;
    }
    default:
      return false;
  }
}

const describeSubject = (s: Subject) =>
  s.kind === "ServiceAccount" ? `${s.kind} "${s.name}/${s.namespace ?? ""}"` : `${s.kind} "${s.name}"`;

export class RbacAuthorizer {
  constructor(private readonly store: Store) {}

  private roleRules(ref: { kind?: string; name?: string }, ns: string): PolicyRule[] | string {
    const cluster = ref.kind === "ClusterRole";
    const role = this.store.get(
      R(cluster ? "ClusterRole" : "Role"),
      cluster ? undefined : ns,
      ref.name ?? "",
    );
    if (!role) return `${cluster ? "clusterrole" : "role"}.rbac.authorization.k8s.io "${ref.name}" not found`;
    return ((role.rules ?? []) as unknown[]).map(toRule).filter((r): r is PolicyRule => !!r);
  }

  /** Every rule that applies to the user in a namespace ("" for cluster-wide only), and errors. */
  visit(user: UserInfo, namespace: string, fn: (v: Visit) => boolean): string[] {
    const errors: string[] = [];
    const walk = (bindings: RoleBinding[], kind: string, bindingNs: string) => {
      for (const b of bindings) {
        const subjects = (b.subjects ?? []) as Subject[];
        const s = subjects.find((x) => appliesTo(user, x, bindingNs));
        if (!s) continue;
        const rules = this.roleRules(b.roleRef ?? {}, bindingNs);
        if (typeof rules === "string") {
          errors.push(rules);
          continue;
        }
        const name = bindingNs ? `${b.metadata.name}/${bindingNs}` : b.metadata.name;
        const source = `${kind} "${name}" of ${b.roleRef?.kind} "${b.roleRef?.name}" to ${describeSubject(s)}`;
        if (fn({ source, rules })) return true;
      }
      return false;
    };
    if (walk(this.store.list(R("ClusterRoleBinding")) as RoleBinding[], "ClusterRoleBinding", ""))
      return errors;
    if (namespace)
      walk(this.store.list(R("RoleBinding"), namespace) as RoleBinding[], "RoleBinding", namespace);
    return errors;
  }

  authorize(a: Attributes): Decision {
    let allowedBy = "";
    const errors = this.visit(a.user, a.namespace, (v) => {
      if (!v.rules.some((r) => ruleAllows(a, r))) return false;
      allowedBy = v.source;
      return true;
    });
    if (allowedBy) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
    const reason = errors.length === 0 ? "" : errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
    return { allowed: false, reason: reason && `RBAC: ${reason}` };
  }

  /** What SelfSubjectRulesReview lists: all rules that apply in a namespace. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors = this.visit(user, namespace, (v) => {
      rules.push(...v.rules);
      return false;
    });
    return { rules, errors };
  }
}
