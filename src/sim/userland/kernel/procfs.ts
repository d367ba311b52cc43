// /proc in a container: procfs mounted from the container's PID namespace, so it lists that
// namespace's processes (the image's process as PID 1, what exec and the shells started, what
// Chaos Mesh runs in the namespace) and nothing of the node's. Each process has a directory with
// the files the kernel generates (Documentation/filesystems/proc.rst): status, stat, cmdline,
// comm, cgroup, environ, mounts, mountinfo, net/. /proc/self is a symlink to the reading
// process's directory, /proc/mounts to self/mounts and /proc/net to self/net, as in Linux.

import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";
import { containerEnv, uidOf } from "../env.js";
import { FsError, type PseudoFs, type PseudoNode } from "../fs.js";
import { type MountEntry, renderMountinfo, renderMounts } from "./mounts.js";
import {
  netMeterKey,
  netRates,
  renderNetDev,
  renderTcp,
  renderTcp6,
  UDP_HEADER,
  UDP6_HEADER,
} from "./netdev.js";
import type { KernelState } from "./state.js";
import { renderStat, renderStatus } from "./status.js";
import type { TaskView } from "./view.js";

export interface ProcInput {
  ctx: SimContext;
  kernel: KernelState;
  pod: Pod;
  container: Container;
  tasks: () => TaskView[];
  mounts: () => MountEntry[];
  /** The kernel's own files at /proc's top (meminfo, cpuinfo, loadavg, uptime). */
  files: Record<string, () => string>;
  /** Cluster ms the boot clock counts from (what /proc/uptime says). */
  bootAt: number;
  cpus: number;
}

/**
 * What runc covers at the top of /proc (its readonly and masked paths, which the mount table
 * lists): directories read-only or emptied, files that read empty (bound from /dev/null).
 */
const COVERED_DIRS = ["acpi", "bus", "fs", "irq", "scsi", "sys"];
const COVERED_FILES = ["kcore", "keys", "sysrq-trigger", "timer_list"];

const PID_FILES = ["cgroup", "cmdline", "comm", "environ", "mountinfo", "mounts", "net", "stat", "status"];
const NET_FILES = ["dev", "tcp", "tcp6", "udp", "udp6"];

const file = (read: () => string): PseudoNode => ({ kind: "file", read });
const dir = (entries: () => string[]): PseudoNode => ({ kind: "dir", entries });

export function procFs(p: ProcInput): PseudoFs {
  const { ctx, pod, container } = p;
  const ids = () => {
    const sc = { ...(pod.spec?.securityContext ?? {}), ...(container.securityContext ?? {}) };
    const uid = uidOf(pod, container);
    const gid = Number(sc.runAsGroup ?? 0);
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    return { uid, gid, groups: [...new Set([gid, ...(fsGroup !== undefined ? [Number(fsGroup)] : [])])] };
  };
  const eth0 = () =>
    p.kernel.meters.read(netMeterKey(pod), ctx.clock.now(), ctx.clock.now(), () =>
      netRates(
        ctx,
        p.kernel.view,
        pod.metadata.namespace ?? "",
        pod.metadata.name ?? "",
        pod.metadata.uid ?? "",
      ),
    );
  const netFiles: Record<string, () => string> = {
    dev: () => renderNetDev(eth0()),
    tcp: () => renderTcp(pod, p.kernel.view.sockets(pod)),
    tcp6: () => renderTcp6(pod, p.kernel.view.sockets(pod)),
    udp: () => UDP_HEADER,
    udp6: () => UDP6_HEADER,
  };
  const pidFile = (t: TaskView, name: string, path: string): PseudoNode | undefined => {
    const own = t.owner === "container";
    switch (name) {
      case "status":
        return file(() => renderStatus(t, own ? ids() : { uid: 0, gid: 0, groups: [0] }, own, p.cpus));
      case "stat":
        return file(() => renderStat(t, p.bootAt, p.cpus));
      case "cmdline":
        return file(() => (t.argv.length ? `${t.argv.join("\0")}\0` : ""));
      case "comm":
        return file(() => `${t.comm}\n`);
      case "cgroup":
        return file(() => `0::${t.cgroup}\n`);
      case "environ":
        // another profile's process (Chaos Mesh's daemon is unconfined): AppArmor denies the read
        return file(() => {
          if (!own) throw new FsError("EACCES", path);
          return [...containerEnv(ctx, pod, container)].map(([k, v]) => `${k}=${v}\0`).join("");
        });
      case "mounts":
        return file(() => renderMounts(p.mounts()));
      case "mountinfo":
        return file(() => renderMountinfo(p.mounts()));
      case "net":
        return dir(() => NET_FILES);
      default:
        return undefined;
    }
  };
  return {
    root: "/proc",
    lookup(rel, self): PseudoNode | undefined {
      const parts = rel.split("/").filter(Boolean);
      if (!parts.length)
        return dir(() => [
          ...Object.keys(p.files),
          ...COVERED_DIRS,
          ...COVERED_FILES,
          "mounts",
          "net",
          "self",
          ...p.tasks().map((t) => String(t.pid)),
        ]);
      const [top, ...rest] = parts;
      if (top === "self") return rest.length ? undefined : { kind: "link", target: String(self) };
      if (top === "mounts" && !rest.length) return { kind: "link", target: "self/mounts" };
      if (top === "net" && !rest.length) return { kind: "link", target: "self/net" };
      if (top in p.files) return rest.length ? undefined : file(p.files[top]);
      if (COVERED_DIRS.includes(top)) return rest.length ? undefined : dir(() => []);
      if (COVERED_FILES.includes(top)) return rest.length ? undefined : file(() => "");
      if (!/^\d+$/.test(top)) return undefined;
      const t = p.tasks().find((x) => String(x.pid) === top);
      if (!t) return undefined;
      if (!rest.length) return dir(() => PID_FILES);
      if (rest[0] === "net" && rest.length === 2)
        return rest[1] in netFiles ? file(netFiles[rest[1]]) : undefined;
      return rest.length === 1 ? pidFile(t, rest[0], `/proc/${rel}`) : undefined;
    },
  };
}
