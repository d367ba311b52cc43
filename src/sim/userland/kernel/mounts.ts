// A container's mount table as /proc/<pid>/mounts and mountinfo show it on k3s (containerd's
// overlayfs snapshotter under /var/lib/rancher/k3s/agent/containerd, the kubelet's pod directory
// under /var/lib/kubelet): the root overlay, what runc mounts from the OCI default spec (proc,
// /dev, devpts, mqueue, sysfs, cgroup2 read-only), the kubelet's and the CRI plugin's mounts in
// containerd's order (stable-sorted by path depth, kubelet's first: volumes, /etc/hosts,
// /dev/termination-log; then /etc/hostname, /etc/resolv.conf, /dev/shm), then the read-only and
// masked /proc paths. An IOChaos adds what toda does (chaos-mesh/toda src/mount_injector.rs): the
// volume's mount moved to <parent>/__chaosfs__<name>__ (MS_MOVE, same mount, same place in the
// table) and a FUSE mount at the volume path, fsname "toda" with allow_other and
// default_permissions, appended last.

import { bytes } from "../../../util/quantity.js";
import { hashString } from "../../../util/rng.js";
import type { Container, Pod } from "../../core/objects.js";
import type { ContainerFs, Mount } from "../fs.js";

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

const CONTAINERD = "/var/lib/rancher/k3s/agent/containerd";
const SNAPSHOTS = `${CONTAINERD}/io.containerd.snapshotter.v1.overlayfs/snapshots`;
/** The node's root disk, where the kubelet's and containerd's directories live (df shows it too). */
export const NODE_DISK = "/dev/sda1";
const DISK_DEV = "8:1";
const TMPFS_64M = "size=65536k";

const hex = (seed: string, n: number) => {
  let out = "";
  for (let i = 0; out.length < n; i++) out += hashString(`${seed}#${i}`).toString(16).padStart(8, "0");
  return out.slice(0, n);
};

/** The container's id as the runtime reports it (64 hex digits). */
export function containerId(pod: Pod, container: string, restartCount: number): string {
  const st = (pod.status?.containerStatuses ?? []).find((s) => s.name === container);
  const id = String(st?.containerID ?? "").replace(/^[a-z]+:\/\//, "");
  return /^[0-9a-f]{64}$/.test(id) ? id : hex(`${pod.metadata.uid}/${container}/${restartCount}`, 64);
}

/** A tmpfs the kubelet sizes for a pod: its memory limits when every container has one, else the node's. */
export function podTmpfsBytes(pod: Pod, nodeMemory: number): number {
  const limits = (pod.spec?.containers ?? []).map((c) => bytes(c.resources?.limits?.memory));
  return limits.length && limits.every((l) => l > 0) ? limits.reduce((a, b) => a + b, 0) : nodeMemory;
}

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

interface TableInput {
  pod: Pod;
  container: Container;
  restartCount: number;
  fs: ContainerFs;
  /** Images whose /var/run is a real directory (BusyBox); elsewhere it links to /run. */
  varRunIsDir: boolean;
  layers: number;
  nodeMemory: number;
}

export function mountTable(t: TableInput): MountEntry[] {
  const { pod, container, fs } = t;
  const uid = pod.metadata.uid ?? "";
  const cid = containerId(pod, container.name, t.restartCount);
  const sandbox = hex(`sandbox/${uid}`, 64);
  const podDir = `/var/lib/kubelet/pods/${uid}`;
  const seed = hashString(cid);
  let anon = 200 + (seed % 300);
  const anonDev = () => `0:${anon++}`;
  const first = 1000 + (seed % 4000);
  const out: MountEntry[] = [];
  const add = (e: Omit<MountEntry, "id" | "parent">): MountEntry => {
    const parent = [...out].reverse().find((m) => e.point.startsWith(m.point === "/" ? "/" : `${m.point}/`));
    const entry = { ...e, id: first + out.length, parent: parent?.id ?? first - 1 - (seed % 7) };
    out.push(entry);
    return entry;
  };
  const lower = hashString(String(container.image)) % 400;
  const upper = 400 + (seed % 600);
  const lowerdir = Array.from(
    { length: Math.max(1, t.layers) },
    (_, i) => `${SNAPSHOTS}/${lower + t.layers - i}/fs`,
  );
  add({
    dev: anonDev(),
    root: "/",
    point: "/",
    flags: "rw,relatime",
    fstype: "overlay",
    source: "overlay",
    options: `rw,lowerdir=${lowerdir.join(":")},upperdir=${SNAPSHOTS}/${upper}/fs,workdir=${SNAPSHOTS}/${upper}/work`,
  });
  const procDev = anonDev();
  add({
    dev: procDev,
    root: "/",
    point: "/proc",
    flags: "rw,nosuid,nodev,noexec,relatime",
    fstype: "proc",
    source: "proc",
    options: "rw",
  });
  const devDev = anonDev();
  add({
    dev: devDev,
    root: "/",
    point: "/dev",
    flags: "rw,nosuid",
    fstype: "tmpfs",
    source: "tmpfs",
    options: `rw,${TMPFS_64M},mode=755,inode64`,
  });
  add({
    dev: anonDev(),
    root: "/",
    point: "/dev/pts",
    flags: "rw,nosuid,noexec,relatime",
    fstype: "devpts",
    source: "devpts",
    options: "rw,gid=5,mode=620,ptmxmode=666",
  });
  add({
    dev: anonDev(),
    root: "/",
    point: "/dev/mqueue",
    flags: "rw,nosuid,nodev,noexec,relatime",
    fstype: "mqueue",
    source: "mqueue",
    options: "rw",
  });
  add({
    dev: anonDev(),
    root: "/",
    point: "/sys",
    flags: "ro,nosuid,nodev,noexec,relatime",
    fstype: "sysfs",
    source: "sysfs",
    options: "ro",
  });
  add({
    dev: "0:27",
    root: "/",
    point: "/sys/fs/cgroup",
    flags: "ro,nosuid,nodev,noexec,relatime",
    fstype: "cgroup2",
    source: "cgroup",
    options: "rw,nsdelegate,memory_recursiveprot",
  });

  // the kubelet's mounts (volumes in the container's order, the token, /etc/hosts, the
  // termination log), then the CRI plugin's; containerd sorts them stably by depth
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const tmpfsK = `size=${Math.round(podTmpfsBytes(pod, t.nodeMemory) / 1024)}k`;
  const shown = (p: string) => (!t.varRunIsDir && p.startsWith("/var/run/") ? p.slice(4) : p);
  type Pending = Omit<MountEntry, "id" | "parent"> & { key?: string };
  const binds: Pending[] = [];
  const disk = (point: string, root: string, ro: boolean): Pending => ({
    dev: DISK_DEV,
    root,
    point,
    flags: ro ? "ro,relatime" : "rw,relatime",
    fstype: "ext4",
    source: NODE_DISK,
    options: "rw",
  });
  const memory = (point: string, ro: boolean, size = tmpfsK): Pending => ({
    dev: anonDev(),
    root: "/",
    point,
    flags: ro ? "ro,relatime" : "rw,relatime",
    fstype: "tmpfs",
    source: "tmpfs",
    options: `rw,${size},inode64`,
  });
  const byPath = new Map<string, Mount>(fs.mounts.map((m) => [m.path, m]));
  // toda moved the volume away: the same mount, now at __chaosfs__<name>__
  const moved = new Map<string, string>();
  for (const m of fs.mounts)
    if (m.kind === "fuse") {
      const i = m.path.lastIndexOf("/");
      moved.set(m.path, `${m.path.slice(0, i)}/__chaosfs__${m.path.slice(i + 1)}__`);
    }
  const token = fs.mounts.find((m) => m.volume === "kube-api-access");
  for (const vm of container.volumeMounts ?? []) {
    const path = String(vm.mountPath).replace(/\/+$/, "") || "/";
    const v = volumes.get(vm.name);
    // the bound token volume admission adds is the token mount below
    if (token && path === token.path) continue;
    const m = byPath.get(moved.get(path) ?? path) ?? byPath.get(path);
    if (!v) continue;
    const ro = vm.readOnly === true;
    const point = shown(moved.get(path) ?? path);
    const sub = vm.subPath ? `/${vm.subPath}` : "";
    if (v.emptyDir)
      binds.push(
        v.emptyDir.medium === "Memory"
          ? memory(
              point,
              ro,
              v.emptyDir.sizeLimit ? `size=${Math.round(bytes(v.emptyDir.sizeLimit) / 1024)}k` : tmpfsK,
            )
          : disk(point, `${podDir}/volumes/kubernetes.io~empty-dir/${vm.name}${sub}`, ro),
      );
    else if (v.configMap)
      binds.push(disk(point, `${podDir}/volumes/kubernetes.io~configmap/${vm.name}${sub}`, true));
    else if (v.secret || v.projected) binds.push({ ...memory(point, true), root: sub || "/" });
    else if (v.persistentVolumeClaim)
      binds.push(
        disk(
          point,
          `/var/lib/rancher/k3s/storage/pvc-${hex(`${pod.metadata.namespace}/${v.persistentVolumeClaim.claimName}`, 8)}_${pod.metadata.namespace}_${v.persistentVolumeClaim.claimName}${sub}`,
          ro,
        ),
      );
    else if (v.hostPath) binds.push(disk(point, `${v.hostPath.path}${sub}`, ro));
    else if (m) binds.push(disk(point, `${podDir}/volumes/kubernetes.io~${m.kind}/${vm.name}${sub}`, ro));
  }
  if (token) binds.push(memory(shown(token.path), true));
  binds.push(disk("/etc/hosts", `${podDir}/etc-hosts`, false));
  binds.push(disk("/dev/termination-log", `${podDir}/containers/${container.name}/${hex(cid, 8)}`, false));
  const sandboxDir = `${CONTAINERD}/io.containerd.grpc.v1.cri/sandboxes/${sandbox}`;
  binds.push(disk("/etc/hostname", `${sandboxDir}/hostname`, false));
  binds.push(disk("/etc/resolv.conf", `${sandboxDir}/resolv.conf`, false));
  binds.push({
    dev: `0:${180 + (hashString(sandbox) % 20)}`,
    root: "/",
    point: "/dev/shm",
    flags: "rw,nosuid,nodev,noexec,relatime",
    fstype: "tmpfs",
    source: "shm",
    options: `rw,${TMPFS_64M},inode64`,
  });
  const depth = (p: string) => p.split("/").length;
  for (const b of binds
    .map((b, i) => ({ b, i }))
    .sort((x, y) => depth(x.b.point) - depth(y.b.point) || x.i - y.i))
    add(b.b);

  // runc's readonly paths, then its masked paths (those this kernel has)
  for (const p of ["bus", "fs", "irq", "sys", "sysrq-trigger"])
    add({
      dev: procDev,
      root: `/${p}`,
      point: `/proc/${p}`,
      flags: "ro,nosuid,nodev,noexec,relatime",
      fstype: "proc",
      source: "proc",
      options: "rw",
    });
  add({
    dev: anonDev(),
    root: "/",
    point: "/proc/acpi",
    flags: "ro,relatime",
    fstype: "tmpfs",
    source: "tmpfs",
    options: "ro,inode64",
  });
  for (const p of ["kcore", "keys", "timer_list"])
    add({
      dev: devDev,
      root: "/null",
      point: `/proc/${p}`,
      flags: "rw,nosuid",
      fstype: "tmpfs",
      source: "tmpfs",
      options: `rw,${TMPFS_64M},mode=755,inode64`,
    });
  add({
    dev: anonDev(),
    root: "/",
    point: "/proc/scsi",
    flags: "ro,relatime",
    fstype: "tmpfs",
    source: "tmpfs",
    options: "ro,inode64",
  });
  add({
    dev: anonDev(),
    root: "/",
    point: "/sys/firmware",
    flags: "ro,relatime",
    fstype: "tmpfs",
    source: "tmpfs",
    options: "ro,inode64",
  });

  // toda's FUSE mounts, mounted last (libfuse mounts with nosuid,nodev; the kernel shows its own
  // user_id/group_id, then the options toda passes)
  for (const m of fs.mounts)
    if (m.kind === "fuse")
      add({
        dev: anonDev(),
        root: "/",
        point: m.path,
        flags: "rw,nosuid,nodev,relatime",
        fstype: "fuse",
        source: "toda",
        options: "rw,user_id=0,group_id=0,default_permissions,allow_other",
      });
  return out;
}
