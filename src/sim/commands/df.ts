// df: the container's mounts as a k3s node shows them. The root overlay, emptyDirs, PVCs
// (local-path) and the kubelet's bind mounts live on the node's disk; memory-backed emptyDirs and
// the service account token are tmpfs (sized as the kubelet sizes them: the pod's memory limits).
// Under an IOChaos, toda's FUSE mount answers statfs from the volume it covers. Used space is the
// node's base use plus what was written.

import { bytes } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { Node } from "../core/objects.js";
import type { Mount } from "../userland/fs.js";
import { NODE_DISK, podTmpfsBytes } from "../userland/kernel/binds.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { parseArgs } from "./args.js";
import { human } from "./files.js";

/** What the node's disk holds besides these containers (images, k3s data): 8.6 GiB. */
const NODE_DISK_BASE = 9_234_567_168;
const DEFAULT_DISK = 263174212 * 1024;

interface Row {
  fs: string;
  size: number;
  used: number;
  path: string;
}

function rows(p: Proc): Row[] {
  const node = p.ctx.registry.tryGet(R("Node"), undefined, p.pod.spec?.nodeName ?? "") as Node | undefined;
  const disk = bytes(node?.status?.capacity?.["ephemeral-storage"]) || DEFAULT_DISK;
  const memory = bytes(node?.status?.capacity?.memory) || 128 * 1024 ** 3;
  const onDisk = (m: Mount): Row => ({
    fs: NODE_DISK,
    size: disk,
    used: NODE_DISK_BASE + p.fs.used(m),
    path: m.path,
  });
  const root = p.fs.mounts.find((m) => m.path === "/")!;
  const out: Row[] = [
    { fs: "overlay", size: disk, used: NODE_DISK_BASE + p.fs.used(root), path: "/" },
    { fs: "tmpfs", size: 64 * 1024 * 1024, used: 0, path: "/dev" },
    { fs: "shm", size: 64 * 1024 * 1024, used: 0, path: "/dev/shm" },
    { fs: NODE_DISK, size: disk, used: NODE_DISK_BASE, path: "/etc/hosts" },
  ];
  for (const m of [...p.fs.mounts].reverse()) {
    if (m.path === "/") continue;
    if (m.kind === "fuse") out.push({ ...onDisk(m), fs: "toda" });
    else if (m.kind === "tmpfs") {
      const size = m.sizeLimit ?? podTmpfsBytes(p.pod, memory);
      out.push({ fs: "tmpfs", size, used: p.fs.used(m), path: m.path });
    } else if (m.kind === "emptyDir" && m.sizeLimit)
      out.push({ ...onDisk(m), size: Math.max(m.sizeLimit, p.fs.used(m)), used: p.fs.used(m) });
    else out.push(onDisk(m));
  }
  return out;
}

function df(args: string[], p: Proc): number {
  const { flags, rest } = parseArgs(args, ["t", "x", "B"]);
  const h = flags.has("h");
  const unit = flags.has("m") ? 1024 * 1024 : 1024;
  let all = rows(p);
  let code = 0;
  if (rest.length) {
    const picked: Row[] = [];
    for (const a of rest) {
      const path = p.path(a);
      if (!p.fs.stat(path)) {
        code = p.fail(`${a}: No such file or directory`);
        continue;
      }
      const m = p.fs.mountOf(path).mount;
      const row = all.find((r) => r.path === m.path);
      if (row) picked.push(row);
    }
    all = picked;
  }
  const fmt = (n: number) => (h ? (n === 0 ? "0" : human(n)) : String(Math.ceil(n / unit)));
  const table = all.map((r) => {
    const used = Math.min(r.used, r.size);
    const avail = Math.max(0, r.size - used);
    const pct = r.size ? `${Math.ceil((used / (used + avail || 1)) * 100)}%` : "-";
    return [r.fs, fmt(r.size), fmt(used), fmt(avail), pct, r.path];
  });
  const head = [
    "Filesystem",
    h ? "Size" : unit === 1024 ? "1K-blocks" : "1M-blocks",
    "Used",
    h ? "Avail" : "Available",
    "Use%",
    "Mounted on",
  ];
  const lines = [head, ...table];
  const w = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  for (const l of lines)
    p.out(`${l.map((c, i) => (i === 0 ? c.padEnd(w[0]) : i === 5 ? c : c.padStart(w[i]))).join(" ")}\n`);
  return code;
}

export function registerDf(r: CommandRegistry): void {
  r.register("df", df);
}
