// Compact JWS (RFC 7515) signed ES256, the form of ServiceAccount tokens: the API server signs
// them with its service-account key and verifies the signature before it trusts any claim.
import { createHash, type KeyObject, sign, verify } from "node:crypto";

const b64u = (b: Buffer | string) => Buffer.from(b).toString("base64url");

export type Claims = Record<string, unknown>;

export class TokenSigner {
  readonly kid: string;

  constructor(
    private readonly key: KeyObject,
    private readonly publicKey: KeyObject,
  ) {
    // the key id kube-apiserver derives: the SHA-256 of the public key's DER, base64url
    this.kid = b64u(
      createHash("sha256")
        .update(publicKey.export({ type: "spki", format: "der" }))
        .digest(),
    );
  }

  sign(claims: Claims): string {
    const head = b64u(JSON.stringify({ alg: "ES256", kid: this.kid }));
    const body = b64u(JSON.stringify(claims));
    const sig = sign("sha256", Buffer.from(`${head}.${body}`), { key: this.key, dsaEncoding: "ieee-p1363" });
    return `${head}.${body}.${b64u(sig)}`;
  }

  /** The claims of a token this signer made, or undefined for anything else. */
  verify(token: string): Claims | undefined {
    const parts = token.split(".");
    if (parts.length !== 3) return undefined;
    const [head, body, sig] = parts;
    const ok = verify(
      "sha256",
      Buffer.from(`${head}.${body}`),
      { key: this.publicKey, dsaEncoding: "ieee-p1363" },
      Buffer.from(sig, "base64url"),
    );
    if (!ok) return undefined;
    try {
      const claims: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
      return claims && typeof claims === "object" && !Array.isArray(claims) ? (claims as Claims) : undefined;
    } catch {
      return undefined;
    }
  }
}
