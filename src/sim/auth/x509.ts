// X.509 v3 certificates (RFC 5280) for the cluster's CA, its serving certificate and client
// certificates, signed with ECDSA P-256 / SHA-256 as kubeadm and k3s sign theirs.
import { createHash, type KeyObject, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";
import { bits, bool, explicit, implicit, octets, oid, seq, set, small, time, uint, utf8 } from "./der.js";

const ECDSA_SHA256 = seq(oid("1.2.840.10045.4.3.2"));
const CN = "2.5.4.3";
const O = "2.5.4.10";

export interface DistinguishedName {
  commonName: string;
  organizations?: string[];
}

export interface CertificateSpec {
  subject: DistinguishedName;
  publicKey: KeyObject;
  /** The issuer's name and key; a self-signed CA passes its own. */
  issuer: { name: DistinguishedName; key: KeyObject; publicKey: KeyObject };
  notBefore: Date;
  notAfter: Date;
  ca?: boolean;
  /** DNS names and IP addresses (a serving certificate). */
  hosts?: string[];
  usage?: "server" | "client";
}

function name(dn: DistinguishedName): Buffer {
  const rdn = (type: string, value: string) => set(seq(oid(type), utf8(value)));
  // Organizations first and the common name last, as Go's pkix.Name marshals them.
  return seq(...(dn.organizations ?? []).map((o) => rdn(O, o)), rdn(CN, dn.commonName));
}

/** The key identifier of RFC 5280 4.2.1.2 (1): SHA-1 of the subjectPublicKey bits. */
function keyId(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: "spki", format: "der" });
  // an EC P-256 SPKI ends with the 65-byte uncompressed point
  return createHash("sha1")
    .update(spki.subarray(spki.length - 65))
    .digest();
}

function ext(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  const [head, tail = ""] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  return Buffer.from(groups.map((g) => g.padStart(4, "0")).join(""), "hex");
}

function extensions(spec: CertificateSpec): Buffer {
  const list = [
    // keyUsage: digitalSignature + keyCertSign + cRLSign for a CA, digitalSignature for an EC leaf
    ext("2.5.29.15", true, spec.ca ? bits(Buffer.from([0x86]), 1) : bits(Buffer.from([0x80]), 7)),
    ext("2.5.29.19", true, spec.ca ? seq(bool(true)) : seq()),
    ext("2.5.29.14", false, octets(keyId(spec.publicKey))),
  ];
  if (!spec.ca) {
    list.push(ext("2.5.29.35", false, seq(implicit(0, keyId(spec.issuer.publicKey)))));
    const usage = spec.usage === "client" ? "1.3.6.1.5.5.7.3.2" : "1.3.6.1.5.5.7.3.1";
    list.push(ext("2.5.29.37", false, seq(oid(usage))));
  }
  if (spec.hosts?.length) {
    const names = spec.hosts.map((h) =>
      isIP(h) ? implicit(7, ipBytes(h)) : implicit(2, Buffer.from(h, "ascii")),
    );
    list.push(ext("2.5.29.17", false, seq(...names)));
  }
  return explicit(3, seq(...list));
}

/** A signed certificate, PEM-encoded. */
export function createCertificate(spec: CertificateSpec): string {
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01; // positive, and 16 bytes long
  const spki = spec.publicKey.export({ type: "spki", format: "der" });
  const tbs = seq(
    explicit(0, small(2)), // v3
    uint(serial),
    ECDSA_SHA256,
    name(spec.issuer.name),
    seq(time(spec.notBefore), time(spec.notAfter)),
    name(spec.subject),
    spki,
    extensions(spec),
  );
  const signature = sign("sha256", tbs, spec.issuer.key); // DER ECDSA-Sig-Value
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  const b64 = der.toString("base64").replace(/(.{64})/g, "$1\n");
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}
