// What the kernel's pseudo files report that the userland cannot know by itself: the processes
// of a container (its application, what Chaos Mesh runs there, what exec started), the pod's
// sockets and how much traffic crosses its interface. The applications' behaviour (workloads/)
// knows these; it implements this seam and exec/ hands it to the filesystems it builds, so the
// files under /proc are rendered here from what the layers above say.

import type { Container, Pod } from "../../core/objects.js";

/** One process in the container's PID namespace. */
export interface TaskView {
  pid: number;
  ppid: number;
  /** The command line (what /proc/<pid>/cmdline holds, NUL-separated). */
  argv: string[];
  /** The process name (comm, 15 characters at most). */
  comm: string;
  state: "R" | "S";
  threads: number;
  rssBytes: number;
  vszBytes: number;
  /** Cluster ms. */
  startedAt: number;
  cpuSeconds: number;
  /** Its cgroup as the container's cgroup namespace shows it ("/": the container's own). */
  cgroup: string;
  /** What runs it: the image's process and exec's commands, or Chaos Mesh's daemon (stress-ng, toda). */
  owner: "container" | "chaos-daemon";
}

/** One TCP socket of the pod's network namespace. */
export interface SocketView {
  family: "tcp" | "tcp6";
  localIp: string;
  localPort: number;
  peerIp: string;
  peerPort: number;
  state: "LISTEN" | "ESTABLISHED";
  /** The container whose process holds it, and that process's name. */
  container?: string;
  comm?: string;
}

/** What crosses the pod's eth0 per second now (both ways), before any netem drops. */
export interface TrafficRate {
  rxBytes: number;
  rxPackets: number;
  txBytes: number;
  txPackets: number;
}

export interface KernelView {
  tasks(pod: Pod, container: Container, restartCount: number): TaskView[];
  sockets(pod: Pod): SocketView[];
  traffic(pod: Pod): TrafficRate;
}

/** A kernel that knows no processes besides the ones the userland itself records. */
export const NO_VIEW: KernelView = {
  tasks: () => [],
  sockets: () => [],
  traffic: () => ({ rxBytes: 0, rxPackets: 0, txBytes: 0, txPackets: 0 }),
};
