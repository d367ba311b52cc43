// Files a container sees that the image does not hold: what the kubelet writes for the pod
// (/etc/hostname, /etc/hosts, /etc/resolv.conf) and the node-wide files at the top of /proc
// (kernel/procfs.ts mounts them with the per-process ones). Each is a function, evaluated when
// read, so /proc follows the node's load as the simulation moves.

import { bytes, milliCpu } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { parseStamp } from "../core/clock.js";
import { PROC_VERSION } from "../core/host.js";
import type { Container, DnsOption, HostAlias, Node, Pod } from "../core/objects.js";
import { containerRef, containerUsage, nodeUsage } from "../metrics/usage.js";

/** k3s' cluster DNS Service address and the cluster domain. */
export const CLUSTER_DNS = "10.43.0.10";
export const CLUSTER_DOMAIN = "cluster.local";

function hosts(pod: Pod): string {
  const host = pod.spec?.hostname ?? pod.metadata.name;
  const fqdn = pod.spec?.subdomain
    ? `${host}.${pod.spec.subdomain}.${pod.metadata.namespace}.svc.${CLUSTER_DOMAIN}\t${host}`
    : host;
  let out = [
    "# Kubernetes-managed hosts file.",
    "127.0.0.1\tlocalhost",
    "::1\tlocalhost ip6-localhost ip6-loopback",
    "fe00::0\tip6-localnet",
    "fe00::0\tip6-mcastprefix",
    "fe00::1\tip6-allnodes",
    "fe00::2\tip6-allrouters",
    `${pod.status?.podIP ?? "10.42.0.2"}\t${fqdn}`,
    "",
  ].join("\n");
  const aliases: HostAlias[] = pod.spec?.hostAliases ?? [];
  if (aliases.length)
    out += `\n# Entries added by HostAliases.\n${aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join("\t")}\n`).join("")}`;
  return out;
}

function resolvConf(pod: Pod): string {
  const ns = pod.metadata.namespace;
  const dns = pod.spec?.dnsConfig ?? {};
  const servers = [CLUSTER_DNS, ...(dns.nameservers ?? [])];
  const search = [
    `${ns}.svc.${CLUSTER_DOMAIN}`,
    `svc.${CLUSTER_DOMAIN}`,
    CLUSTER_DOMAIN,
    ...(dns.searches ?? []),
  ];
  const options = [
    "ndots:5",
    ...(dns.options ?? []).map((o: DnsOption) => (o.value ? `${o.name}:${o.value}` : o.name)),
  ];
  return `search ${search.join(" ")}\nnameserver ${servers.join("\nnameserver ")}\noptions ${options.join(" ")}\n`;
}

const kB = (b: number) => `${String(Math.round(b / 1024)).padStart(8)} kB`;

function meminfo(ctx: SimContext, pod: Pod, container: Container): string {
  // Without lxcfs a container sees the node's memory, not its limit (why Java needs its flags).
  const node = ctx.registry.tryGet(R("Node"), undefined, pod.spec?.nodeName ?? "") as Node | undefined;
  const total = bytes(node?.status?.capacity?.memory) || 128 * 1024 ** 3;
  const used = node ? nodeUsage(ctx, node, ctx.clock.now()).memoryBytes : 0;
  const ref = containerRef(pod, container.name, ctx.clock);
  const mine = ref ? containerUsage(ctx, ref, ctx.clock.now()).memoryBytes : 0;
  const cached = Math.round(total * 0.18);
  const free = Math.max(0, total - used - cached);
  const rows: [string, number][] = [
    ["MemTotal", total],
    ["MemFree", free],
    ["MemAvailable", free + cached],
    ["Buffers", Math.round(total * 0.01)],
    ["Cached", cached],
    ["SwapCached", 0],
    ["Active", used - mine + Math.round(cached / 2)],
    ["Inactive", Math.round(cached / 2)],
    ["SwapTotal", 0],
    ["SwapFree", 0],
    ["Shmem", 64 * 1024 * 1024],
  ];
  return rows.map(([k, v]) => `${`${k}:`.padEnd(16)}${kB(v)}`).join("\n") + "\n";
}

function loadavg(ctx: SimContext, pod: Pod): string {
  const node = ctx.registry.tryGet(R("Node"), undefined, pod.spec?.nodeName ?? "") as Node | undefined;
  const cores = node ? nodeUsage(ctx, node, ctx.clock.now()).cpuMilli / 1000 : 0.1;
  const l = (f: number) => (cores * f).toFixed(2);
  return `${l(1.05)} ${l(1)} ${l(0.95)} 1/612 ${4000 + (pod.metadata.name?.length ?? 0)}\n`;
}

function cpuinfo(ctx: SimContext, pod: Pod): string {
  const node = ctx.registry.tryGet(R("Node"), undefined, pod.spec?.nodeName ?? "") as Node | undefined;
  const n = Math.max(1, Math.round(milliCpu(node?.status?.capacity?.cpu) / 1000) || 4);
  return Array.from(
    { length: n },
    (_, i) => `processor\t: ${i}\nmodel name\t: MicroRemed virtual CPU\ncpu MHz\t\t: 2400.000\n`,
  ).join("\n");
}

/** What /proc/uptime counts from (cluster ms). */
export function bootAt(ctx: SimContext, pod: Pod): number {
  return parseStamp(ctx.clock, pod.status?.startTime ?? pod.metadata.creationTimestamp) || ctx.clock.now();
}

/** The node's files at the top of /proc, by name. */
export function procTopFiles(ctx: SimContext, pod: Pod, container: Container): Record<string, () => string> {
  const started = bootAt(ctx, pod);
  return {
    meminfo: () => meminfo(ctx, pod, container),
    loadavg: () => loadavg(ctx, pod),
    cpuinfo: () => cpuinfo(ctx, pod),
    // the kernel uname -r and -v report
    version: () => PROC_VERSION,
    uptime: () => {
      const s = Math.max(0, (ctx.clock.now() - started) / 1000);
      return `${s.toFixed(2)} ${(s * 3.7).toFixed(2)}\n`;
    },
  };
}

/** Generated files by absolute path. */
export function systemFiles(_ctx: SimContext, pod: Pod, _container: Container): Record<string, () => string> {
  return {
    "/etc/hostname": () => `${pod.spec?.hostname ?? pod.metadata.name}\n`,
    "/etc/hosts": () => hosts(pod),
    "/etc/resolv.conf": () => resolvConf(pod),
    "/dev/null": () => "",
    // the kubelet's file for the termination message, empty until the container writes one
    "/dev/termination-log": () => "",
  };
}
