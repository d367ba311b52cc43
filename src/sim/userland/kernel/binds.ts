// The mounts the kubelet and containerd's CRI plugin ask runc for, in containerd's order: the
// kubelet's first (the container's volumes in order, the service account token, /etc/hosts, the
// termination log), then the plugin's (/etc/hostname, /etc/resolv.conf, /dev/shm), stable-sorted by
// path depth (WithMounts' orderedMounts). Each is a bind of a directory on the node: the kubelet's
// pod directory (/var/lib/kubelet/pods/<uid>), the sandbox's under containerd's state, k3s'
// local-path storage for claims; tmpfs for secrets, the token and memory-backed emptyDirs, sized
// as the kubelet sizes them (the pod's memory limits when every container has one). While an
// IOChaos lasts the volume it covers sits at <parent>/__chaosfs__<name>__, where toda moved it.

import { bytes } from "../../../util/quantity.js";
import { hashString } from "../../../util/rng.js";
import type { Container, Pod } from "../../core/objects.js";
import type { ContainerFs } from "../fs.js";

/** The node's root disk, where the kubelet's and containerd's directories live (df shows it too). */
export const NODE_DISK = "/dev/sda1";
const DISK_DEV = "8:1";
const SANDBOXES = "/var/lib/rancher/k3s/agent/containerd/io.containerd.grpc.v1.cri/sandboxes";

export interface TableInput {
  pod: Pod;
  container: Container;
  restartCount: number;
  fs: ContainerFs;
  /** Images whose /var/run is a real directory (BusyBox); elsewhere it links to /run. */
  varRunIsDir: boolean;
  layers: number;
  nodeMemory: number;
}

export interface Bind {
  dev?: string;
  root: string;
  point: string;
  flags: string;
  fstype: string;
  source: string;
  options: string;
}

/** Hex digits fixed by a seed (ids the runtime would have drawn). */
export const hexOf = (seed: string, n: number) => {
  let out = "";
  for (let i = 0; out.length < n; i++) out += hashString(`${seed}#${i}`).toString(16).padStart(8, "0");
  return out.slice(0, n);
};

/** A tmpfs the kubelet sizes for a pod: its memory limits when every container has one, else the node's. */
export function podTmpfsBytes(pod: Pod, nodeMemory: number): number {
  const limits = (pod.spec?.containers ?? []).map((c) => bytes(c.resources?.limits?.memory));
  return limits.length && limits.every((l) => l > 0) ? limits.reduce((a, b) => a + b, 0) : nodeMemory;
}

export function kubeletBinds(t: TableInput): Bind[] {
  const { pod, container, fs } = t;
  const uid = pod.metadata.uid ?? "";
  const podDir = `/var/lib/kubelet/pods/${uid}`;
  const podK = `size=${Math.round(podTmpfsBytes(pod, t.nodeMemory) / 1024)}k`;
  const shown = (p: string) => (!t.varRunIsDir && p.startsWith("/var/run/") ? p.slice(4) : p);
  const disk = (point: string, root: string, ro: boolean): Bind => ({
    dev: DISK_DEV,
    root,
    point,
    flags: ro ? "ro,relatime" : "rw,relatime",
    fstype: "ext4",
    source: NODE_DISK,
    options: "rw",
  });
  const memory = (point: string, ro: boolean, size = podK): Bind => ({
    root: "/",
    point,
    flags: ro ? "ro,relatime" : "rw,relatime",
    fstype: "tmpfs",
    source: "tmpfs",
    options: `rw,${size},inode64`,
  });
  // toda moved the volume away: the same mount, now at __chaosfs__<name>__
  const moved = new Map<string, string>();
  for (const m of fs.mounts)
    if (m.kind === "fuse") {
      const i = m.path.lastIndexOf("/");
      moved.set(m.path, `${m.path.slice(0, i)}/__chaosfs__${m.path.slice(i + 1)}__`);
    }
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const token = fs.mounts.find((m) => m.volume === "kube-api-access");
  const binds: Bind[] = [];
  for (const vm of container.volumeMounts ?? []) {
    const path = String(vm.mountPath).replace(/\/+$/, "") || "/";
    const v = volumes.get(vm.name);
    // the bound token volume admission adds is the token mount below
    if (!v || (token && path === token.path)) continue;
    const ro = vm.readOnly === true;
    const point = shown(moved.get(path) ?? path);
    const sub = vm.subPath ? `/${vm.subPath}` : "";
    const under = (kind: string) => `${podDir}/volumes/kubernetes.io~${kind}/${vm.name}${sub}`;
    if (v.emptyDir?.medium === "Memory") {
      const limit = v.emptyDir.sizeLimit ? `size=${Math.round(bytes(v.emptyDir.sizeLimit) / 1024)}k` : podK;
      binds.push(memory(point, ro, limit));
    } else if (v.emptyDir) binds.push(disk(point, under("empty-dir"), ro));
    else if (v.configMap) binds.push(disk(point, under("configmap"), true));
    else if (v.secret || v.projected) binds.push({ ...memory(point, true), root: sub || "/" });
    else if (v.persistentVolumeClaim) {
      const claim = `${pod.metadata.namespace}_${v.persistentVolumeClaim.claimName}`;
      binds.push(disk(point, `/var/lib/rancher/k3s/storage/pvc-${hexOf(claim, 8)}_${claim}${sub}`, ro));
    } else if (v.hostPath) binds.push(disk(point, `${v.hostPath.path}${sub}`, ro));
    else binds.push(disk(point, under("other"), ro));
  }
  if (token) binds.push(memory(shown(token.path), true));
  const cid = containerIdOf(pod, container.name, t.restartCount);
  binds.push(disk("/etc/hosts", `${podDir}/etc-hosts`, false));
  binds.push(disk("/dev/termination-log", `${podDir}/containers/${container.name}/${hexOf(cid, 8)}`, false));
  const sandbox = `${SANDBOXES}/${hexOf(`sandbox/${uid}`, 64)}`;
  binds.push(disk("/etc/hostname", `${sandbox}/hostname`, false));
  binds.push(disk("/etc/resolv.conf", `${sandbox}/resolv.conf`, false));
  binds.push({
    dev: `0:${180 + (hashString(sandbox) % 20)}`,
    root: "/",
    point: "/dev/shm",
    flags: "rw,nosuid,nodev,noexec,relatime",
    fstype: "tmpfs",
    source: "shm",
    options: "rw,size=65536k,inode64",
  });
  const depth = (p: string) => p.split("/").length;
  return binds
    .map((b, i) => ({ b, i }))
    .sort((x, y) => depth(x.b.point) - depth(y.b.point) || x.i - y.i)
    .map((x) => x.b);
}

/** The container's id as the runtime reports it (64 hex digits). */
export function containerIdOf(pod: Pod, container: string, restartCount: number): string {
  const st = (pod.status?.containerStatuses ?? []).find((s) => s.name === container);
  const id = String(st?.containerID ?? "").replace(/^[a-z]+:\/\//, "");
  return /^[0-9a-f]{64}$/.test(id) ? id : hexOf(`${pod.metadata.uid}/${container}/${restartCount}`, 64);
}
