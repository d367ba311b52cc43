// SPDY/3 header blocks: a count, then length-prefixed names and values (several values of one name
// joined by NUL), the whole block zlib-compressed with one stream per direction per connection,
// primed with the dictionary of the SPDY/3 draft (section 2.6.10.1). The dictionary bytes are
// those of moby/spdystream spdy/dictionary.go (golang.org/x/net/spdy before it), written here as
// the draft lists them: length-prefixed words, then one run of text.
import { constants, inflateSync } from "node:zlib";

// biome-ignore format: the draft's list, kept dense
const WORDS = [
  "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding",
  "accept-language", "accept-ranges", "age", "allow", "authorization", "cache-control", "connection",
  "content-base", "content-encoding", "content-language", "content-length", "content-location",
  "content-md5", "content-range", "content-type", "date", "etag", "expect", "expires", "from", "host",
  "if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified",
  "location", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
  "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via",
  "warning", "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url",
  "public", "set-cookie", "keep-alive", "origin",
];

const TAIL =
  "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505" +
  "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request" +
  "401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented" +
  "503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 " +
  "Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif," +
  "application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=" +
  "gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

function lengthPrefixed(s: string | Buffer): Buffer {
  const b = typeof s === "string" ? Buffer.from(s) : s;
  const n = Buffer.alloc(4);
  n.writeUInt32BE(b.length);
  return Buffer.concat([n, b]);
}

export const SPDY_DICTIONARY: Buffer = Buffer.concat([
  ...WORDS.map((w) => lengthPrefixed(w)),
  Buffer.from(TAIL),
]);

export type SpdyHeaders = Map<string, string[]>;

/** The uncompressed block; names go lower-case, as SPDY/3 requires. */
export function encodeHeaderBlock(h: SpdyHeaders): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(h.size);
  const parts: Buffer[] = [count];
  for (const [name, values] of h)
    parts.push(lengthPrefixed(name.toLowerCase()), lengthPrefixed(values.join("\0")));
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(b: Buffer): SpdyHeaders {
  const h: SpdyHeaders = new Map();
  let at = 0;
  const take = (): string => {
    if (at + 4 > b.length) throw new Error("truncated SPDY header block");
    const n = b.readUInt32BE(at);
    if (at + 4 + n > b.length) throw new Error("truncated SPDY header block");
    const s = b.toString("latin1", at + 4, at + 4 + n);
    at += 4 + n;
    return s;
  };
  if (b.length < 4) throw new Error("truncated SPDY header block");
  const count = b.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = take().toLowerCase();
    h.set(name, [...(h.get(name) ?? []), ...take().split("\0")]);
  }
  return h;
}

function adler32(b: Buffer): number {
  let a = 1;
  let s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

/**
 * The sending side's zlib stream. Header blocks are small, so each is stored (uncompressed)
 * deflate blocks, a valid continuation of one zlib stream made synchronously, which Go's
 * compress/zlib (kubectl's spdystream) reads as it reads a sync-flushed block.
 */
export class HeaderCompressor {
  private started = false;

  compress(h: SpdyHeaders): Buffer {
    const raw = encodeHeaderBlock(h);
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      // CMF 0x78 (deflate, 32K window), FLG with FDICT and the check bits, then the dictionary id
      const head = Buffer.from([0x78, 0x00, 0, 0, 0, 0]);
      head[1] = 0x20 + (31 - ((0x78 * 256 + 0x20) % 31));
      head.writeUInt32BE(adler32(SPDY_DICTIONARY), 2);
      parts.push(head);
    }
    for (let at = 0; at < raw.length; at += 0xffff) {
      const chunk = raw.subarray(at, at + 0xffff);
      const hdr = Buffer.alloc(5);
      hdr[0] = 0; // BFINAL 0, BTYPE 00 (stored), padded to the byte
      hdr.writeUInt16LE(chunk.length, 1);
      hdr.writeUInt16LE(~chunk.length & 0xffff, 3);
      parts.push(hdr, chunk);
    }
    // and an empty stored block, as a sync flush ends: Go's inflater hands out a stored block's
    // bytes only when it reads the next block header, which must be inside this frame's payload
    parts.push(Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]));
    return Buffer.concat(parts);
  }
}

/**
 * The receiving side: one zlib stream across all header blocks of a connection. Node has no
 * synchronous streaming inflater, so the blocks seen so far are inflated again as one input and
 * the new output is what this block added (a handful of small blocks per exec).
 */
export class HeaderDecompressor {
  private input: Buffer = Buffer.alloc(0);
  private produced = 0;

  decompress(block: Buffer): SpdyHeaders {
    this.input = Buffer.concat([this.input, block]);
    const out = inflateSync(this.input, { dictionary: SPDY_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    const fresh = out.subarray(this.produced);
    this.produced = out.length;
    return decodeHeaderBlock(fresh);
  }
}
