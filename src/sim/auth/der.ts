// The few ASN.1 DER encodings an X.509 certificate needs (ITU-T X.690). Node's crypto makes keys
// and signatures but not certificates; this is the part it leaves out.

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value. */
export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), len(content.length), content]);
}

export const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
export const octets = (b: Buffer) => tlv(0x04, b);
export const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
export const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
/** [n] EXPLICIT: a constructed context-specific tag around a whole encoding. */
export const explicit = (n: number, inner: Buffer) => tlv(0xa0 | n, inner);
/** [n] IMPLICIT primitive (a GeneralName's dNSName is [2], iPAddress [7]). */
export const implicit = (n: number, content: Buffer) => tlv(0x80 | n, content);

/** A non-negative INTEGER from big-endian bytes (a leading 0 keeps the sign bit clear). */
export function uint(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && b[1] < 0x80) b = b.subarray(1);
  if (b[0] >= 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

/** A small INTEGER (0-255), such as a certificate's version. */
export const small = (n: number) => uint(Buffer.from([n & 0xff]));

/** A BIT STRING of whole bytes (signatures, keys). */
export const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));

export function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map(Number);
  const out: number[] = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime before 2050, GeneralizedTime after (RFC 5280 4.1.2.5). */
export function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14); // YYYYMMDDHHMMSS
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, "ascii"))
    : tlv(0x18, Buffer.from(`${iso}Z`, "ascii"));
}
