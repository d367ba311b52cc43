// The text of a noise warning, as the kubelet would write it for this pod in its state: a
// readiness probe that once answered too late names the pod's own probe (its URL, port and path
// for httpGet, pkg/probe/http's client timeout; pkg/probe/tcp's i/o timeout; grpc_health_probe's
// or an exec command's own timeout), and the DNS search line warning names the line the kubelet
// applied (pkg/kubelet/network/dns/dns.go). A pod with no readiness probe gets no probe warning:
// the warning is then not made.
import type { Pod } from "../kube/objects.js";

/** The reasons a warning noise event may have (plan.ts picks one). */
export const WARNING_REASONS = ["Unhealthy", "DNSConfigForming"] as const;
export type WarningReason = (typeof WARNING_REASONS)[number];

type Port = number | string | undefined;

function portOf(pod: Pod, port: Port): string {
  if (typeof port === "number" || port === undefined || /^\d+$/.test(port)) return String(port ?? "");
  for (const c of pod.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === port) return String(p.containerPort);
  return port;
}

/** A readiness probe of the pod's first container that answered too late, in kubelet's words. */
function probeTimeout(pod: Pod): string | undefined {
  const probe = pod.spec?.containers?.[0]?.readinessProbe;
  const ip = pod.status?.podIP;
  if (!probe || !ip) return undefined;
  if (probe.httpGet) {
    const h = probe.httpGet;
    const url = `${(h.scheme ?? "HTTP").toLowerCase()}://${h.host ?? ip}:${portOf(pod, h.port)}${h.path ?? "/"}`;
    return `Readiness probe failed: Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  }
  if (probe.tcpSocket)
    return `Readiness probe failed: dial tcp ${ip}:${portOf(pod, probe.tcpSocket.port)}: i/o timeout`;
  if (probe.grpc)
    return `Readiness probe failed: timeout: health rpc did not complete within ${probe.timeoutSeconds ?? 1}s`;
  const cmd = probe.exec?.command ?? [];
  if (!cmd.length) return undefined;
  if (/(^|\/)grpc_health_probe$/.test(cmd[0]))
    return "Readiness probe failed: timeout: health rpc did not complete within 1s";
  return `Readiness probe failed: command "${cmd.join(" ")}" timed out`;
}

/** The warning's message for this pod, or undefined when the kubelet would not write it. */
export function warningFor(reason: WarningReason, pod: Pod): string | undefined {
  if (reason === "Unhealthy") return probeTimeout(pod);
  const ns = pod.metadata.namespace ?? "default";
  return `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${ns}.svc.cluster.local svc.cluster.local cluster.local`;
}
