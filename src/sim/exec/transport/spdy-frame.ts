// SPDY/3 framing (draft-mbelshe-httpbis-spdy-00 section 2.2; moby/spdystream spdy/types.go,
// read.go, write.go). A control frame: 1 bit set, version 15 bits (3), type 16 bits, flags 8
// bits, length 24 bits, payload. A data frame: 1 bit clear, stream id 31 bits, flags 8 bits,
// length 24 bits, payload. Only what exec needs is decoded; the rest is passed on as raw.
import type { HeaderCompressor, HeaderDecompressor, SpdyHeaders } from "./spdy-headers.js";

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;

export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

/** RST_STREAM status codes (spdystream spdy/types.go RstStreamStatus). */
export const RST_PROTOCOL_ERROR = 1;
export const RST_CANCEL = 5;

export type Frame =
  | { kind: "data"; streamId: number; flags: number; data: Buffer }
  | { kind: "syn_stream"; streamId: number; flags: number; headers: SpdyHeaders }
  | { kind: "rst_stream"; streamId: number; status: number }
  | { kind: "ping"; id: number }
  | { kind: "goaway"; lastStreamId: number; status: number }
  | { kind: "other"; type: number; flags: number; payload: Buffer };

/** Cuts the byte stream into frames; header blocks go through the connection's inflater. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly headers: HeaderDecompressor) {}

  /** The frames completed by these bytes. Throws on a malformed frame (the caller sends GOAWAY). */
  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const frames: Frame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUIntBE(5, 3);
      if (this.buf.length < 8 + length) break;
      const first = this.buf.readUInt32BE(0);
      const flags = this.buf[4] ?? 0;
      const payload = this.buf.subarray(8, 8 + length);
      this.buf = this.buf.subarray(8 + length);
      if (first & 0x80000000)
        frames.push(this.control((first >>> 16) & 0x7fff, first & 0xffff, flags, payload));
      else frames.push({ kind: "data", streamId: first & 0x7fffffff, flags, data: Buffer.from(payload) });
    }
    return frames;
  }

  private control(version: number, type: number, flags: number, p: Buffer): Frame {
    if (version !== SPDY_VERSION) throw new Error(`unsupported SPDY version ${version}`);
    const need = (n: number) => {
      if (p.length < n) throw new Error(`SPDY control frame ${type} is too short`);
    };
    switch (type) {
      case FrameType.SynStream:
        // stream id, associated-to stream id, priority (3 bits) and slot, then the header block
        need(10);
        return {
          kind: "syn_stream",
          streamId: p.readUInt32BE(0) & 0x7fffffff,
          flags,
          headers: this.headers.decompress(p.subarray(10)),
        };
      case FrameType.RstStream:
        need(8);
        return { kind: "rst_stream", streamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
      case FrameType.Ping:
        need(4);
        return { kind: "ping", id: p.readUInt32BE(0) };
      case FrameType.GoAway:
        need(8);
        return { kind: "goaway", lastStreamId: p.readUInt32BE(0) & 0x7fffffff, status: p.readUInt32BE(4) };
      case FrameType.Headers:
        // its header block still advances the shared zlib stream
        need(4);
        this.headers.decompress(p.subarray(4));
        return { kind: "other", type, flags, payload: Buffer.from(p) };
      default:
        return { kind: "other", type, flags, payload: Buffer.from(p) };
    }
  }
}

function control(type: number, flags: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE((0x8000 | SPDY_VERSION) * 0x10000 + type);
  h[4] = flags;
  h.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([h, payload]);
}

const u32 = (...xs: number[]) => {
  const b = Buffer.alloc(4 * xs.length);
  for (const [i, x] of xs.entries()) b.writeUInt32BE(x >>> 0, 4 * i);
  return b;
};

export function synReply(c: HeaderCompressor, streamId: number, headers: SpdyHeaders = new Map()): Buffer {
  return control(FrameType.SynReply, 0, Buffer.concat([u32(streamId), c.compress(headers)]));
}

export const rstStream = (streamId: number, status: number): Buffer =>
  control(FrameType.RstStream, 0, u32(streamId, status));

export const ping = (id: number): Buffer => control(FrameType.Ping, 0, u32(id));

export const goAway = (lastStreamId: number, status = 0): Buffer =>
  control(FrameType.GoAway, 0, u32(lastStreamId, status));

/** Data frames of at most 16 MiB - 1 each (the 24-bit length); FIN on the last. */
export function dataFrames(streamId: number, data: Buffer, fin: boolean): Buffer[] {
  const max = 0xffffff;
  const out: Buffer[] = [];
  let at = 0;
  do {
    const chunk = data.subarray(at, at + max);
    at += max;
    const h = Buffer.alloc(8);
    h.writeUInt32BE(streamId & 0x7fffffff);
    h[4] = fin && at >= data.length ? FLAG_FIN : 0;
    h.writeUIntBE(chunk.length, 5, 3);
    out.push(h, chunk);
  } while (at < data.length);
  return out;
}
