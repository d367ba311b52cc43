// ServiceAccount tokens: the bound tokens the TokenRequest API issues and the legacy tokens the
// tokens controller writes into Secrets, and the authenticator that resolves either back to the
// ServiceAccount, which must still exist (kubernetes pkg/serviceaccount/claims.go, legacy.go).
import { randomUUID } from "node:crypto";
import { R } from "../api/resources.js";
import type { Clock } from "../core/clock.js";
import type { Secret } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import type { Store } from "../store/store.js";
import type { Claims, TokenSigner } from "./jwt.js";
import { serviceAccountUser, type UserInfo } from "./user.js";

/** The API server's issuer and audiences, as on k3s. */
export const ISSUER = "https://kubernetes.default.svc.cluster.local";
export const API_AUDIENCES = [ISSUER, "k3s"];
const LEGACY_ISSUER = "kubernetes/serviceaccount";

export interface BoundRef {
  kind: "Pod" | "Secret";
  name: string;
  uid?: string;
}

type J = Record<string, unknown>;
const obj = (v: unknown): J => (v && typeof v === "object" && !Array.isArray(v) ? (v as J) : {});
const str = (v: unknown) => (typeof v === "string" ? v : "");

export class TokenAuthority {
  /**
   * How far shown time has moved, both ways, since the cluster started (the clock re-based
   * between cases): a token's iat, nbf and exp are shown instants of when it was issued, so it is
   * judged with that much slack, as if the clock had not moved.
   */
  private movedSeconds = 0;

  constructor(
    private readonly signer: TokenSigner,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    clock.onShift?.((delta) => {
      this.movedSeconds += Math.ceil(Math.abs(delta) / 1000);
    });
  }

  /** Seconds since the epoch on the cluster clock: expiry follows cluster time. */
  nowSeconds(): number {
    return Math.floor(this.clock.toWall(this.clock.now()) / 1000);
  }

  bound(
    sa: KObject,
    audiences: string[],
    expirationSeconds: number,
    ref?: BoundRef,
  ): { token: string; exp: number } {
    const iat = this.nowSeconds();
    const exp = iat + expirationSeconds;
    const k8s: J = {
      namespace: sa.metadata.namespace,
      serviceaccount: { name: sa.metadata.name, uid: sa.metadata.uid },
    };
    if (ref) k8s[ref.kind === "Pod" ? "pod" : "secret"] = { name: ref.name, uid: ref.uid };
    const claims: Claims = {
      aud: audiences,
      exp,
      iat,
      iss: ISSUER,
      jti: randomUUID(),
      "kubernetes.io": k8s,
      nbf: iat,
      sub: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`,
    };
    return { token: this.signer.sign(claims), exp };
  }

  legacy(sa: KObject, secretName: string): string {
    const p = "kubernetes.io/serviceaccount/";
    return this.signer.sign({
      iss: LEGACY_ISSUER,
      [`${p}namespace`]: sa.metadata.namespace,
      [`${p}secret.name`]: secretName,
      [`${p}service-account.name`]: sa.metadata.name,
      [`${p}service-account.uid`]: sa.metadata.uid,
      sub: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`,
    });
  }

  /** The user a token authenticates as, or undefined when it is not (or no longer) valid. */
  authenticate(token: string): UserInfo | undefined {
    const c = this.signer.verify(token);
    if (!c) return undefined;
    return c.iss === ISSUER
      ? this.checkBound(c)
      : c.iss === LEGACY_ISSUER
        ? this.checkLegacy(c, token)
        : undefined;
  }

  private liveServiceAccount(ns: string, name: string, uid: string): KObject | undefined {
    const sa = this.store.get(R("ServiceAccount"), ns, name);
    if (!sa || sa.metadata.uid !== uid || sa.metadata.deletionTimestamp) return undefined;
    return sa;
  }

  private checkBound(c: Claims): UserInfo | undefined {
    const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
    if (!aud.some((a) => API_AUDIENCES.includes(str(a)))) return undefined;
    const now = this.nowSeconds();
    if (typeof c.exp !== "number" || now - this.movedSeconds >= c.exp) return undefined;
    if (typeof c.nbf === "number" && now + 60 + this.movedSeconds < c.nbf) return undefined;
    const k = obj(c["kubernetes.io"]);
    const ns = str(k.namespace);
    const sa = obj(k.serviceaccount);
    if (!this.liveServiceAccount(ns, str(sa.name), str(sa.uid))) return undefined;
    const extra: Record<string, string[]> = {};
    for (const kind of ["pod", "secret"] as const) {
      const ref = obj(k[kind]);
      if (!ref.name) continue;
      const live = this.store.get(R(kind === "pod" ? "Pod" : "Secret"), ns, str(ref.name));
      if (!live || (ref.uid && live.metadata.uid !== ref.uid)) return undefined;
      if (kind === "pod") {
        extra["authentication.kubernetes.io/pod-name"] = [str(ref.name)];
        extra["authentication.kubernetes.io/pod-uid"] = [str(live.metadata.uid)];
      }
    }
    if (c.jti) extra["authentication.kubernetes.io/credential-id"] = [`JTI=${str(c.jti)}`];
    return { ...serviceAccountUser(ns, str(sa.name), str(sa.uid)), extra };
  }

  private checkLegacy(c: Claims, token: string): UserInfo | undefined {
    const p = "kubernetes.io/serviceaccount/";
    const ns = str(c[`${p}namespace`]);
    const secret = this.store.get(R("Secret"), ns, str(c[`${p}secret.name`])) as Secret | undefined;
    const stored = secret?.data?.token;
    if (typeof stored !== "string" || Buffer.from(stored, "base64").toString("utf8") !== token)
      return undefined;
    const name = str(c[`${p}service-account.name`]);
    const uid = str(c[`${p}service-account.uid`]);
    if (!this.liveServiceAccount(ns, name, uid)) return undefined;
    return serviceAccountUser(ns, name, uid);
  }
}
