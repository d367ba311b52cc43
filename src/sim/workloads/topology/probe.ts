// What the kubelet's network probes reach in a pod, as kubelet's prober does them
// (pkg/kubelet/prober/prober.go runProbe): an httpGet probe is a GET from the node to the pod IP,
// the port and the path (pkg/probe/http: 200-399 passes, anything else fails as "HTTP probe
// failed with statuscode: N", a client error fails with Go's net/http text); a tcpSocket probe
// is a connect (pkg/probe/tcp); a gRPC probe asks the health service on the port, and so does an
// exec probe running grpc_health_probe (Online-Boutique's), from inside the pod. Whoever listens
// on the port in the pod's network namespace answers (listeners.ts): the application with its own
// pages (http.ts: a path it does not serve is its 404), a sidecar that bound the port, or nobody
// (connection refused).

import { Rng } from "../../../util/rng.js";
import type { ContainerRef, ProbeReach } from "../../context/behavior.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod, Probe } from "../../core/objects.js";
import { loopbackOnly } from "../../userland/mysqld-options.js";
import { answer } from "./http.js";
import { type Listener, listeners } from "./listeners.js";

/**
 * What Go's HTTP/1 client reads first from a server speaking another protocol, as its error
 * quotes it (`malformed HTTP response %q`): a gRPC server's SETTINGS frame, Redis' answer to the
 * inline command `GET <path> HTTP/1.1`, MySQL's greeting, AMQP's protocol header, an echo.
 */
function firstLine(l: Listener, path: string): string {
  switch (l.protocol) {
    case "grpc":
      return "\\x00\\x00\\x06\\x04\\x00\\x00\\x00\\x00\\x00\\x00\\x05\\x00\\x00@\\x00";
    case "redis":
      return "-ERR wrong number of arguments for 'get' command";
    case "mysql":
      return "J\\x00\\x00\\x00";
    case "amqp":
      return "AMQP\\x00\\x00\\t\\x01";
    default:
      return `GET ${path} HTTP/1.1`;
  }
}

/** The port a probe handler names, a number or a container port's name. */
export function probePort(spec: Container, port: number | string | undefined): number | undefined {
  if (typeof port === "number") return port;
  if (port === undefined) return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  const named = (spec.ports ?? []).find((p) => p.name === port)?.containerPort;
  return named === undefined ? undefined : Number(named);
}

/**
 * The port an exec probe running grpc_health_probe dials (`-addr=:3550`, `-addr localhost:8080`):
 * the Online-Boutique services' probe is a gRPC health check from inside the pod
 * (grpc-ecosystem/grpc-health-probe main.go dials -addr, then calls grpc.health.v1.Health/Check).
 */
export function grpcHealthProbePort(probe: Probe): number | undefined {
  const cmd = (probe.exec?.command ?? []).map(String);
  if (!cmd.length || !/(^|\/)grpc_health_probe$/.test(cmd[0])) return undefined;
  const i = cmd.findIndex((a) => /^--?addr(=|$)/.test(a));
  const addr = i < 0 ? undefined : cmd[i].includes("=") ? cmd[i].slice(cmd[i].indexOf("=") + 1) : cmd[i + 1];
  const port = Number(addr?.slice(addr.lastIndexOf(":") + 1));
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/** What the probe's connection reaches in the pod at `now`; undefined for an exec probe. */
export function probeReach(
  ctx: SimContext,
  ref: ContainerRef,
  probe: Probe,
  now: number,
): ProbeReach | undefined {
  const health = grpcHealthProbePort(probe);
  const handler = probe.httpGet ?? probe.tcpSocket ?? probe.grpc ?? (health ? { port: health } : undefined);
  if (!handler) return undefined;
  const pod = ref.pod as Pod;
  const port = probePort(ref.container, handler.port);
  const l = port === undefined ? undefined : listeners(ctx, pod, now, ref).find((x) => x.port === port);
  // the kubelet connects to the pod's IP: a socket bound to the loopback address refuses it
  if (!l || loopbackOnly(l.address)) return { kind: "refused" };
  if (probe.tcpSocket) return { kind: "open" };
  if (probe.grpc || health) return l.protocol === "grpc" ? { kind: "open" } : { kind: "garbled", error: "" };
  const path = probe.httpGet?.path || "/";
  if (l.protocol !== "http")
    return {
      kind: "garbled",
      error: `net/http: HTTP/1.x transport connection broken: malformed HTTP response "${firstLine(l, path)}"`,
    };
  // the same answer for the same probe tick, whenever it is asked
  const rng = new Rng(`${pod.metadata.uid}/${ref.container.name}/${now}/probe`);
  return { kind: "http", status: answer(ctx, pod, l, "GET", path, () => rng.next()).status };
}
