// The pod's network namespace as /proc/net shows it: /proc/net/dev (lo and eth0, the kernel's
// net/core/net-procfs.c columns) with eth0's counters grown by the traffic the applications'
// model says crosses it (requests in, answers out, calls to dependencies, the kubelet's probes),
// and /proc/net/tcp and tcp6 (net/ipv4/tcp_ipv4.c, net/ipv6/tcp_ipv6.c) from the pod's sockets,
// with udp and udp6 beside them: what BusyBox's and net-tools' netstat read.

import { hashString } from "../../../util/rng.js";
import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import type { KernelView, SocketView } from "./view.js";

export const netMeterKey = (pod: Pod) => `${pod.metadata.namespace}/${pod.metadata.uid}/net`;

/** eth0's rates per cluster ms now: rx bytes, rx packets, tx bytes, tx packets. */
export function netRates(ctx: SimContext, view: KernelView, ns: string, name: string, uid: string): number[] {
  const pod = ctx.store.get(R("Pod"), ns, name) as Pod | undefined;
  if (!pod || pod.metadata.uid !== uid || pod.status?.phase !== "Running") return [0, 0, 0, 0];
  const t = view.traffic(pod);
  return [t.rxBytes, t.rxPackets, t.txBytes, t.txPackets].map((v) => v / 1000);
}

const num = (n: number, w: number) => String(Math.floor(n)).padStart(w);

function devLine(name: string, rxB: number, rxP: number, txB: number, txP: number): string {
  const rx = [num(rxB, 7), num(rxP, 7), num(0, 4), num(0, 4), num(0, 4), num(0, 5), num(0, 10), num(0, 9)];
  const tx = [num(txB, 8), num(txP, 7), num(0, 4), num(0, 4), num(0, 4), num(0, 5), num(0, 7), num(0, 10)];
  return `${name.padStart(6)}: ${rx.join(" ")} ${tx.join(" ")}\n`;
}

/** /proc/net/dev from eth0's counters (lo carries nothing the model knows of). */
export function renderNetDev(eth0: number[]): string {
  const [rxB, rxP, txB, txP] = eth0;
  return (
    "Inter-|   Receive                                                |  Transmit\n" +
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n" +
    devLine("lo", 0, 0, 0, 0) +
    devLine("eth0", rxB, rxP, txB, txP)
  );
}

const hex = (n: number, w: number) => n.toString(16).toUpperCase().padStart(w, "0");

/** An IPv4 address as the kernel prints a __be32 on a little-endian machine. */
function ip4(ip: string): string {
  const b = ip.split(".").map(Number);
  return b.length === 4
    ? [...b]
        .reverse()
        .map((x) => hex(x, 2))
        .join("")
    : "00000000";
}

/** An IPv6 address as four host-order words: "::" is all zeros, ::ffff:a.b.c.d its mapped form. */
function ip6(ip: string): string {
  if (ip === "::" || ip === "") return "0".repeat(32);
  return `0000000000000000FFFF0000${ip4(ip)}`;
}

const TCP_HEADER =
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";
const TCP6_HEADER =
  "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";

function inode(s: SocketView, pod: Pod): number {
  return 20_000 + (hashString(`${pod.metadata.uid}/${s.localPort}/${s.peerIp}:${s.peerPort}`) % 900_000);
}

function tail(s: SocketView, pod: Pod): string {
  const listen = s.state === "LISTEN";
  const st = listen ? "0A" : "01";
  const timer = listen ? "00:00000000" : `02:${hex(400 + (inode(s, pod) % 9000), 8)}`;
  const extra = listen ? "1 0000000000000000 100 0 0 10 0" : "2 0000000000000000 20 4 30 10 -1";
  return `${st} 00000000:00000000 ${timer} 00000000 ${String(0).padStart(5)} ${String(0).padStart(8)} ${inode(s, pod)} ${extra}`;
}

/** /proc/net/tcp: IPv4 sockets, each line padded to 149 characters as tcp4_seq_show pads it. */
export function renderTcp(pod: Pod, socks: SocketView[]): string {
  const rows = socks.filter((s) => s.family === "tcp");
  const lines = [TCP_HEADER.padEnd(149)];
  rows.forEach((s, i) => {
    const local = `${ip4(s.localIp)}:${hex(s.localPort, 4)}`;
    const peer = `${ip4(s.peerIp)}:${hex(s.peerPort, 4)}`;
    lines.push(`${String(i).padStart(4)}: ${local} ${peer} ${tail(s, pod)}`.padEnd(149));
  });
  return `${lines.join("\n")}\n`;
}

/** /proc/net/udp and udp6: the applications here hold no UDP socket (DNS lookups close theirs). */
export const UDP_HEADER =
  "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n";
export const UDP6_HEADER =
  "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n";

/** /proc/net/tcp6: the dual-stack listeners (Java, Go, Node, ...). */
export function renderTcp6(pod: Pod, socks: SocketView[]): string {
  const rows = socks.filter((s) => s.family === "tcp6");
  const lines = [TCP6_HEADER];
  rows.forEach((s, i) => {
    const local = `${ip6(s.localIp)}:${hex(s.localPort, 4)}`;
    const peer = `${ip6(s.peerIp)}:${hex(s.peerPort, 4)}`;
    lines.push(`${String(i).padStart(4)}: ${local} ${peer} ${tail(s, pod)}`);
  });
  return `${lines.join("\n")}\n`;
}
