// dd, as GNU coreutils or BusyBox prints it (the summary on stderr). Every file operation (the
// open, each block read or written, an fsync, the close) takes a disk's time: the node's disk at
// ~300 MB/s with O_DIRECT (page cache ~1.5 GB/s without), and an IOChaos covering the path
// (Chaos Mesh's FUSE layer on the volume) delays each operation by `delay` with probability
// `percent` (ctx.rng), or fails it with the errno for action `fault`. So 10 MiB in 1 MiB blocks
// under the reference's 5 s / 50% latency takes half a minute: far below 10 MB/s. The bytes land
// in the container's filesystem; the command takes its time in cluster time.
import { randomBytes } from "node:crypto";
import { FsError } from "../userland/fs.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readAll } from "../userland/stream.js";
import { gated, toolImpl } from "../userland/toolbox.js";
import { ioFaultsAt } from "../workloads/topology/impairments.js";

/** How much an endless input (if=/dev/zero without count=) writes before the disk is "full". */
const ENDLESS_CAP = 64 * 1024 * 1024;
const ERRNO: Record<number, string> = {
  5: "Input/output error",
  28: "No space left on device",
  13: "Permission denied",
  30: "Read-only file system",
};

/** dd's sizes: 512, 4k, 1M, 1MB (decimal), 2xM... (GNU and BusyBox agree on these). */
function size(s: string | undefined, dflt: number): number | undefined {
  if (s === undefined) return dflt;
  const m = s.match(/^(\d+)(c|w|b|kB|KB|K|k|MB|M|m|GB|G|g|KiB|MiB|GiB)?$/);
  if (!m) return undefined;
  const mult: Record<string, number> = {
    c: 1,
    w: 2,
    b: 512,
    kB: 1e3,
    KB: 1e3,
    K: 1024,
    k: 1024,
    KiB: 1024,
    MB: 1e6,
    M: 1048576,
    m: 1048576,
    MiB: 1048576,
    GB: 1e9,
    G: 1073741824,
    g: 1073741824,
    GiB: 1073741824,
  };
  return Number(m[1]) * (m[2] ? mult[m[2]] : 1);
}

/** GNU's human_readable with 3 significant digits: "10 MB", "1.0 MB", "205 MB/s". */
function gnuHuman(n: number, base: 1000 | 1024): string {
  const units = base === 1000 ? ["B", "kB", "MB", "GB", "TB"] : ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= base && i < units.length - 1) {
    v /= base;
    i++;
  }
  const txt = v < 10 ? (Math.ceil(v * 10) / 10).toFixed(1) : String(Math.round(v));
  return `${txt} ${units[i]}`;
}

/** BusyBox's make_human_readable_str(n, 1, 0): 1024-based, one decimal. */
function bbHuman(n: number): string {
  const units = ["", "k", "M", "G", "T"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? String(Math.round(v)) : `${v.toFixed(1)}${units[i]}`;
}

async function dd(args: string[], p: Proc): Promise<number> {
  const gnu = toolImpl(p, "dd") !== "busybox";
  const opt = new Map<string, string>();
  for (const a of args) {
    const i = a.indexOf("=");
    if (i <= 0) return p.fail(gnu ? `unrecognized operand '${a}'` : `invalid argument '${a}'`);
    opt.set(a.slice(0, i), a.slice(i + 1));
  }
  const bs = size(opt.get("bs") ?? opt.get("obs"), 512);
  const count = opt.has("count") ? size(opt.get("count"), 0) : undefined;
  if (bs === undefined || bs <= 0 || (opt.has("count") && count === undefined))
    return p.fail(`invalid number: '${opt.get("bs") ?? opt.get("count")}'`);
  const iff = opt.get("if");
  const of = opt.get("of");
  const direct = /direct/.test(`${opt.get("oflag") ?? ""}`);
  const sync =
    /dsync|sync/.test(`${opt.get("oflag") ?? ""}`) || /fsync|fdatasync/.test(`${opt.get("conv") ?? ""}`);
  const status = opt.get("status");

  // the input: a device, a file, or stdin
  let source: Buffer | undefined;
  if (iff && !["/dev/zero", "/dev/urandom", "/dev/random"].includes(iff)) {
    try {
      source = p.fs.read(p.path(iff));
    } catch (e) {
      return p.fail(
        gnu
          ? `failed to open '${iff}': ${e instanceof FsError ? e.message : e}`
          : `can't open '${iff}': ${e instanceof FsError ? e.message : e}`,
      );
    }
  } else if (!iff) source = await readAll(p.stdin);
  // an endless device without count= fills the disk; the node's disk is not modelled that far
  const endless = !source && count === undefined;
  const blocks = count ?? (source ? Math.ceil(source.length / bs) : Math.floor(ENDLESS_CAP / bs));
  const full = source ? Math.min(blocks, Math.floor(source.length / bs)) : blocks;
  const partial = source && blocks > full && source.length > full * bs ? 1 : 0;
  const total = source ? Math.min(source.length, blocks * bs) : blocks * bs;

  // the time each operation takes, and what IOChaos does to it
  const outPath = of ? p.path(of) : undefined;
  const faults =
    outPath && !outPath.startsWith("/dev/") ? ioFaultsAt(p.ctx.faults, p.pod, p.container.name, outPath) : [];
  const rnd = () => p.ctx.rng.next();
  const perByte = (direct ? 1 / 300e6 : 1 / 1.5e9) * (0.9 + rnd() * 0.2) * 1000;
  let ms = 0.05;
  let failed: number | undefined;
  const op = (base: number): boolean => {
    ms += base;
    for (const f of faults) {
      if (rnd() * 100 >= f.percent) continue;
      if (f.action === "fault") {
        failed = f.errno ?? 5;
        return false;
      }
      if (f.action === "latency") ms += f.delayMs ?? 0;
    }
    return true;
  };
  let written = 0;
  let ok = op(0.02); // open
  for (let i = 0; ok && i < full + partial; i++) {
    const n = Math.min(bs, total - i * bs);
    ok = op(0.01 + n * perByte + (sync ? 0.3 : 0));
    if (ok) written += n;
  }
  if (ok && endless) failed = 28;
  if (ok && sync) ok = op(0.5);
  if (ok) op(0.01); // close

  if (outPath && !outPath.startsWith("/dev/")) {
    try {
      const data = source
        ? source.subarray(0, written)
        : iff === "/dev/zero" || !iff
          ? Buffer.alloc(written)
          : randomBytes(Math.min(written, 1 << 16));
      p.fs.write(
        outPath,
        data.length === written
          ? data
          : Buffer.concat(Array(Math.ceil(written / data.length)).fill(data)).subarray(0, written),
      );
    } catch (e) {
      return p.fail(
        gnu
          ? `failed to open '${of}': ${e instanceof FsError ? e.message : e}`
          : `can't open '${of}': ${e instanceof FsError ? e.message : e}`,
      );
    }
  } else if (!of) p.stdout.write(source ? source.subarray(0, written) : Buffer.alloc(written));
  if (!(await p.sleep(ms))) return 130;

  const wholeIn = failed === undefined ? full : Math.floor(written / bs);
  const recs = `${wholeIn}+${failed === undefined ? partial : 0} records in\n${Math.floor(written / bs)}+${written % bs ? 1 : 0} records out\n`;
  if (failed !== undefined)
    p.stderr.write(`dd: error writing '${of}': ${ERRNO[failed] ?? `errno ${failed}`}\n`);
  if (status === "none") return failed === undefined ? 0 : 1;
  p.stderr.write(recs);
  if (status === "noxfer") return failed === undefined ? 0 : 1;
  const secs = ms / 1000;
  const rate = written / secs;
  if (gnu) {
    const sz =
      written < 1000
        ? `${written} byte${written === 1 ? "" : "s"}`
        : written < 1024
          ? `${written} bytes (${gnuHuman(written, 1000)})`
          : `${written} bytes (${gnuHuman(written, 1000)}, ${gnuHuman(written, 1024)})`;
    p.stderr.write(`${sz} copied, ${String(Number(secs.toPrecision(6)))} s, ${gnuHuman(rate, 1000)}/s\n`);
  } else {
    p.stderr.write(
      `${written} bytes (${bbHuman(written)}B) copied, ${secs.toFixed(6)} seconds, ${bbHuman(rate)}B/s\n`,
    );
  }
  return failed === undefined ? 0 : 1;
}

export function registerDd(r: CommandRegistry): void {
  r.register("dd", gated("dd", dd));
}
