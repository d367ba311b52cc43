// Authentication and authorization of every API request, in kube-apiserver's order: who is
// asking (client certificate, else bearer token, else system:anonymous; a bad credential is 401),
// whom they act as (impersonation), then whether RBAC allows it (system:masters always is).
import { generateKeyPairSync } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Registry } from "../api/registry.js";
import type { Clock } from "../core/clock.js";
import type { Store } from "../store/store.js";
import { requester as currentUser, escalationAdmission } from "./escalation.js";
import { forbidden, unauthorized } from "./forbidden.js";
import { impersonate } from "./impersonation.js";
import { TokenSigner } from "./jwt.js";
import { ClusterPki, certificateUser } from "./pki.js";
import { type Decision, RbacAuthorizer } from "./rbac.js";
import { type Attributes, requestAttributes } from "./request-info.js";
import { REVIEW_RESOURCES, review } from "./reviews.js";
import type { PolicyRule } from "./rules.js";
import { tokenRequest } from "./token-request.js";
import { TokenAuthority } from "./tokens.js";
import { ANONYMOUS, isPrivileged, type UserInfo } from "./user.js";

export type { UserInfo } from "./user.js";

/** Streaming subresources a WebSocket GET opens; they need `create` too (KEP-4006, v1.35). */
const STREAMING = new Set(["exec", "attach", "portforward"]);
const EVERYTHING: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

export class ClusterAuth {
  readonly pki = new ClusterPki();
  readonly tokens: TokenAuthority;
  private readonly rbac: RbacAuthorizer;
  private readonly users = new WeakMap<IncomingMessage, UserInfo>();

  constructor(
    store: Store,
    private readonly registry: Registry,
    clock: Clock,
  ) {
    const k = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    this.tokens = new TokenAuthority(new TokenSigner(k.privateKey, k.publicKey), store, clock);
    this.rbac = new RbacAuthorizer(store);
    registry.admission.push(
      escalationAdmission({
        store,
        authorize: (a) => this.authorize(a),
        rulesFor: (u, ns) => this.rulesFor(u, ns),
      }),
    );
  }

  /** The x509 authenticator, then the bearer token one; nothing at all is system:anonymous. */
  authenticate(req: IncomingMessage): UserInfo {
    const cert = certificateUser(req.socket as TLSSocket);
    if (cert === "invalid") throw unauthorized();
    if (cert) return cert;
    const token = /^Bearer\s+(.*)$/i.exec(req.headers.authorization ?? "")?.[1].trim();
    if (!token) return ANONYMOUS;
    const user = this.tokens.authenticate(token);
    if (!user) throw unauthorized();
    return user;
  }

  authorize(a: Attributes): Decision {
    if (isPrivileged(a.user)) return { allowed: true, reason: "" };
    return this.rbac.authorize(a);
  }

  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const found = this.rbac.rulesFor(user, namespace);
    return isPrivileged(user) ? { ...found, rules: [...EVERYTHING, ...found.rules] } : found;
  }

  private require(a: Attributes) {
    const d = this.authorize(a);
    if (!d.allowed) throw forbidden(a, d.reason);
  }

  /** Authenticate and authorize a request (throws the 401/403 ApiError); the user it acts as. */
  admit(req: IncomingMessage, url: URL, upgrade = false): UserInfo {
    const requester = this.authenticate(req);
    const user = impersonate(requester, req.headers, (a) => this.require(a));
    const a = requestAttributes(user, req.method ?? "GET", url);
    this.require(a);
    if (upgrade && a.resourceRequest && STREAMING.has(a.subresource) && a.verb === "get")
      this.require({ ...a, verb: "create" });
    this.users.set(req, user);
    // the rest of this request runs as `user`: the escalation check reads it at admission
    currentUser.enterWith(user);
    return user;
  }

  /** Requests answered here rather than stored: the reviews and TokenRequest. */
  handles(group: string, resource: string, subresource?: string): boolean {
    if (resource === "serviceaccounts" && subresource === "token" && group === "") return true;
    return (
      (group === "authorization.k8s.io" || group === "authentication.k8s.io") &&
      REVIEW_RESOURCES.has(resource)
    );
  }

  /** The answer to a POST that handles() claimed. */
  serve(
    req: IncomingMessage,
    resource: string,
    namespace: string | undefined,
    name: string | undefined,
    body: unknown,
  ): Record<string, unknown> {
    const caller = this.users.get(req) ?? ANONYMOUS;
    const b =
      body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    if (resource === "serviceaccounts")
      return tokenRequest(this.registry, this.tokens, namespace ?? "", name ?? "", b);
    return review(
      {
        authorize: (a) => this.authorize(a),
        rulesFor: (u, ns) => this.rulesFor(u, ns),
        authenticateToken: (t) => this.tokens.authenticate(t),
      },
      resource,
      namespace,
      caller,
      b,
    );
  }
}
