// The create-only review APIs that answer from the caller's identity and never store anything:
// SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview, LocalSubjectAccessReview
// (authorization.k8s.io/v1), SelfSubjectReview and TokenReview (authentication.k8s.io/v1)
// (kubernetes pkg/registry/authorization/*, pkg/registry/authentication/*).
import { ApiError, badRequest, invalid } from "../api/status.js";
import type { Decision } from "./rbac.js";
import type { Attributes } from "./request-info.js";
import type { PolicyRule } from "./rules.js";
import type { UserInfo } from "./user.js";

type J = Record<string, unknown>;
const obj = (v: unknown): J => (v && typeof v === "object" && !Array.isArray(v) ? (v as J) : {});
const str = (v: unknown) => (typeof v === "string" ? v : "");
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export interface ReviewDeps {
  authorize(a: Attributes): Decision;
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] };
  authenticateToken(token: string): UserInfo | undefined;
}

function attributesOf(user: UserInfo, spec: J, kind: string): Attributes {
  const ra = spec.resourceAttributes;
  const na = spec.nonResourceAttributes;
  if ((ra === undefined) === (na === undefined))
    throw invalid(`${kind}.authorization.k8s.io`, "", [
      {
        field: "spec.resourceAuthorizationAttributes",
        message:
          'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ]);
  const r = obj(ra);
  const n = obj(na);
  return {
    user,
    verb: str(ra !== undefined ? r.verb : n.verb),
    resourceRequest: ra !== undefined,
    path: str(n.path),
    apiGroup: str(r.group),
    apiVersion: str(r.version),
    namespace: str(r.namespace),
    resource: str(r.resource),
    subresource: str(r.subresource),
    name: str(r.name),
  };
}

function answer(kind: string, group: string, body: J, status: J): J {
  return {
    kind,
    apiVersion: `${group}/v1`,
    metadata: { ...obj(body.metadata), creationTimestamp: null },
    spec: obj(body.spec),
    status,
  };
}

const decisionStatus = (d: Decision): J => ({
  allowed: d.allowed,
  ...(d.reason ? { reason: d.reason } : {}),
});

const userInfoJson = (u: UserInfo): J => ({
  username: u.name,
  ...(u.uid ? { uid: u.uid } : {}),
  groups: u.groups,
  ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
});

/** The answer to a POST of one of the review kinds, by resource name. */
export function review(
  deps: ReviewDeps,
  resource: string,
  namespace: string | undefined,
  caller: UserInfo,
  body: J,
): J {
  const spec = obj(body.spec);
  switch (resource) {
    case "selfsubjectaccessreviews":
      return answer(
        "SelfSubjectAccessReview",
        "authorization.k8s.io",
        body,
        decisionStatus(deps.authorize(attributesOf(caller, spec, "SelfSubjectAccessReview"))),
      );
    case "subjectaccessreviews":
    case "localsubjectaccessreviews": {
      const local = resource === "localsubjectaccessreviews";
      const kind = local ? "LocalSubjectAccessReview" : "SubjectAccessReview";
      const user: UserInfo = {
        name: str(spec.user),
        uid: str(spec.uid) || undefined,
        groups: strs(spec.groups),
      };
      const a = attributesOf(user, spec, kind);
      if (local && a.namespace !== namespace)
        throw invalid(`${kind}.authorization.k8s.io`, "", [
          {
            field: "spec.resourceAttributes.namespace",
            message: `Invalid value: "${a.namespace}": must match metadata.namespace`,
          },
        ]);
      return answer(kind, "authorization.k8s.io", body, decisionStatus(deps.authorize(a)));
    }
    case "selfsubjectrulesreviews": {
      const ns = str(spec.namespace);
      if (!ns) throw badRequest("no namespace on request");
      const { rules, errors } = deps.rulesFor(caller, ns);
      const resourceRules = rules
        .filter((r) => !r.nonResourceURLs?.length)
        .map((r) => ({
          verbs: r.verbs,
          ...(r.apiGroups ? { apiGroups: r.apiGroups } : {}),
          ...(r.resources ? { resources: r.resources } : {}),
          ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
        }));
      const nonResourceRules = rules
        .filter((r) => r.nonResourceURLs?.length)
        .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs }));
      return answer("SelfSubjectRulesReview", "authorization.k8s.io", body, {
        resourceRules,
        nonResourceRules,
        incomplete: errors.length > 0,
        ...(errors.length ? { evaluationError: errors.join(", ") } : {}),
      });
    }
    case "selfsubjectreviews":
      return {
        ...answer("SelfSubjectReview", "authentication.k8s.io", body, { userInfo: userInfoJson(caller) }),
        spec: undefined,
      };
    case "tokenreviews": {
      const user = deps.authenticateToken(str(spec.token));
      return answer(
        "TokenReview",
        "authentication.k8s.io",
        body,
        user
          ? { authenticated: true, user: userInfoJson(user) }
          : { user: {}, error: "invalid bearer token" },
      );
    }
  }
  throw new ApiError(405, "MethodNotAllowed", `${resource} are not served here`);
}

export const REVIEW_RESOURCES = new Set([
  "selfsubjectaccessreviews",
  "subjectaccessreviews",
  "localsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "selfsubjectreviews",
  "tokenreviews",
]);
