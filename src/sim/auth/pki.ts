// The cluster's own certificate authority, made in memory when the cluster starts: the serving
// certificate clients verify, and the admin's client certificate (O=system:masters), as k3s
// writes them. A client that does not trust this CA fails the TLS handshake.
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "./user.js";
import { AUTHENTICATED, SYSTEM_MASTERS } from "./user.js";
import { createCertificate, type DistinguishedName } from "./x509.js";

const HOUR = 3600_000;
const YEAR = 365 * 24 * HOUR;

/** Names the API server answers to: loopback, and the kubernetes Service from inside pods. */
export const SERVING_HOSTS = [
  "127.0.0.1",
  "::1",
  "10.43.0.1",
  "localhost",
  "kubernetes",
  "kubernetes.default",
  "kubernetes.default.svc",
  "kubernetes.default.svc.cluster.local",
];

export interface KeyPairPem {
  cert: string;
  key: string;
}

const newKey = () => generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const pem = (k: KeyObject) => k.export({ type: "pkcs8", format: "pem" }).toString();

export class ClusterPki {
  readonly ca: string;
  readonly serving: KeyPairPem;
  readonly admin: KeyPairPem;
  private readonly caName: DistinguishedName;
  private readonly caKey: ReturnType<typeof newKey>;

  /** `now` is the wall clock: TLS peers check validity against theirs, not the cluster's. */
  constructor(now = new Date()) {
    this.caKey = newKey();
    this.caName = { commonName: `k3s-server-ca@${Math.floor(now.getTime() / 1000)}` };
    this.ca = createCertificate({
      subject: this.caName,
      publicKey: this.caKey.publicKey,
      issuer: { name: this.caName, key: this.caKey.privateKey, publicKey: this.caKey.publicKey },
      notBefore: new Date(now.getTime() - HOUR),
      notAfter: new Date(now.getTime() + 10 * YEAR),
      ca: true,
    });
    this.serving = this.issue({ commonName: "kube-apiserver" }, "server", now, SERVING_HOSTS);
    this.admin = this.issue({ commonName: "system:admin", organizations: [SYSTEM_MASTERS] }, "client", now);
  }

  /** A certificate signed by the cluster CA (a client's CN is its user, each O a group). */
  issue(
    subject: DistinguishedName,
    usage: "server" | "client",
    now = new Date(),
    hosts?: string[],
  ): KeyPairPem {
    const k = newKey();
    const cert = createCertificate({
      subject,
      publicKey: k.publicKey,
      issuer: { name: this.caName, key: this.caKey.privateKey, publicKey: this.caKey.publicKey },
      notBefore: new Date(now.getTime() - HOUR),
      notAfter: new Date(now.getTime() + YEAR),
      usage,
      hosts,
    });
    return { cert, key: pem(k.privateKey) };
  }
}

/**
 * The user a verified client certificate names (the x509 authenticator): undefined when the
 * client sent none, "invalid" when it sent one this CA did not sign.
 */
export function certificateUser(socket: TLSSocket): UserInfo | "invalid" | undefined {
  const peer = socket.getPeerCertificate?.();
  if (!peer || Object.keys(peer).length === 0) return undefined;
  if (!socket.authorized) return "invalid";
  const cn = peer.subject?.CN;
  const o = peer.subject?.O;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return "invalid";
  const orgs = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { name, groups: [...orgs, AUTHENTICATED] };
}
