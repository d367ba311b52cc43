// A container's mount table as /proc/<pid>/mounts and mountinfo show it on k3s (containerd's
// overlayfs snapshotter under /var/lib/rancher/k3s/agent/containerd): the root overlay, what runc
// mounts from the OCI default spec (proc, /dev, devpts, mqueue, sysfs, cgroup2 read-only), the
// kubelet's and the CRI plugin's mounts (binds.ts), then runc's read-only and masked /proc paths,
// and last, while an IOChaos lasts, toda's FUSE mount over the volume (chaos-mesh/toda
// src/mount_injector.rs: fsname "toda" with allow_other and default_permissions, through libfuse,
// which mounts nosuid,nodev; the kernel shows its own user_id/group_id first).

import { hashString } from "../../../util/rng.js";
import { type Bind, kubeletBinds, type TableInput } from "./binds.js";

export interface MountEntry {
  id: number;
  parent: number;
  dev: string;
  /** The mounted subtree of its filesystem ("/" or a bind mount's source directory). */
  root: string;
  point: string;
  /** Per-mount flags (rw|ro,nosuid,...). */
  flags: string;
  fstype: string;
  source: string;
  /** The filesystem's own options. */
  options: string;
}

const SNAPSHOTS = "/var/lib/rancher/k3s/agent/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots";
const TMPFS_64M = "size=65536k";
const RO = "ro,nosuid,nodev,noexec,relatime";

/** runc's mounts from the default spec: point, fstype, source, flags, options. */
const RUNC: [string, string, string, string, string][] = [
  ["/proc", "proc", "proc", "rw,nosuid,nodev,noexec,relatime", "rw"],
  ["/dev", "tmpfs", "tmpfs", "rw,nosuid", `rw,${TMPFS_64M},mode=755,inode64`],
  ["/dev/pts", "devpts", "devpts", "rw,nosuid,noexec,relatime", "rw,gid=5,mode=620,ptmxmode=666"],
  ["/dev/mqueue", "mqueue", "mqueue", "rw,nosuid,nodev,noexec,relatime", "rw"],
  ["/sys", "sysfs", "sysfs", RO, "ro"],
  ["/sys/fs/cgroup", "cgroup2", "cgroup", RO, "rw,nsdelegate,memory_recursiveprot"],
];
/** runc's readonly paths (re-bound read-only from /proc) and masked paths (a tmpfs, or /dev/null). */
const READONLY = ["bus", "fs", "irq", "sys", "sysrq-trigger"];
const MASKED_DIRS = ["/proc/acpi", "/proc/scsi", "/sys/firmware"];
const MASKED_FILES = ["kcore", "keys", "timer_list"];

/** What /proc/mounts prints as a mount's options: its flags, then the filesystem's (less rw/ro). */
export function mountOptions(e: MountEntry): string {
  return [e.flags, ...e.options.split(",").filter((o) => o && o !== "rw" && o !== "ro")].join(",");
}

export function renderMounts(table: MountEntry[]): string {
  return table.map((e) => `${e.source} ${e.point} ${e.fstype} ${mountOptions(e)} 0 0\n`).join("");
}

export function renderMountinfo(table: MountEntry[]): string {
  return table
    .map(
      (e) =>
        `${e.id} ${e.parent} ${e.dev} ${e.root} ${e.point} ${e.flags} - ${e.fstype} ${e.source} ${e.options}\n`,
    )
    .join("");
}

export function mountTable(t: TableInput): MountEntry[] {
  const seed = hashString(`${t.pod.metadata.uid}/${t.container.name}/${t.restartCount}`);
  let anon = 200 + (seed % 300);
  const first = 1000 + (seed % 4000);
  const out: MountEntry[] = [];
  const devs = new Map<string, string>();
  const add = (e: Omit<MountEntry, "id" | "parent" | "dev"> & { dev?: string }) => {
    const parent = [...out].reverse().find((m) => e.point.startsWith(m.point === "/" ? "/" : `${m.point}/`));
    const dev = e.dev ?? `0:${anon++}`;
    out.push({ ...e, dev, id: first + out.length, parent: parent?.id ?? first - 1 - (seed % 7) });
    devs.set(e.point, dev);
  };
  const lower = hashString(String(t.container.image)) % 400;
  const upper = 400 + (seed % 600);
  const lowerdir = Array.from(
    { length: Math.max(1, t.layers) },
    (_, i) => `${SNAPSHOTS}/${lower + t.layers - i}/fs`,
  );
  add({
    root: "/",
    point: "/",
    flags: "rw,relatime",
    fstype: "overlay",
    source: "overlay",
    options: `rw,lowerdir=${lowerdir.join(":")},upperdir=${SNAPSHOTS}/${upper}/fs,workdir=${SNAPSHOTS}/${upper}/work`,
  });
  for (const [point, fstype, source, flags, options] of RUNC)
    add({ root: "/", point, fstype, source, flags, options, dev: fstype === "cgroup2" ? "0:27" : undefined });
  for (const b of kubeletBinds(t)) add(b satisfies Bind);
  for (const p of READONLY)
    add({
      dev: devs.get("/proc"),
      root: `/${p}`,
      point: `/proc/${p}`,
      flags: RO,
      fstype: "proc",
      source: "proc",
      options: "rw",
    });
  const masked = (point: string) =>
    add({ root: "/", point, flags: "ro,relatime", fstype: "tmpfs", source: "tmpfs", options: "ro,inode64" });
  masked(MASKED_DIRS[0]);
  for (const p of MASKED_FILES)
    add({
      dev: devs.get("/dev"),
      root: "/null",
      point: `/proc/${p}`,
      flags: "rw,nosuid",
      fstype: "tmpfs",
      source: "tmpfs",
      options: `rw,${TMPFS_64M},mode=755,inode64`,
    });
  for (const p of MASKED_DIRS.slice(1)) masked(p);
  for (const m of t.fs.mounts)
    if (m.kind === "fuse")
      add({
        root: "/",
        point: m.path,
        flags: "rw,nosuid,nodev,relatime",
        fstype: "fuse",
        source: "toda",
        options: "rw,user_id=0,group_id=0,default_permissions,allow_other",
      });
  return out;
}
