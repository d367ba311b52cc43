// The TCP sockets of a pod's network namespace, which netstat and ss list and /proc/net/tcp
// holds. The namespace is the pod's, so every container sees the ports all containers listen on
// (listeners.ts: open once the application started). Established connections: the pooled client
// connections of the application to the dependencies that have a Ready endpoint (to the
// Service's ClusterIP, which is what the socket sees before kube-proxy's DNAT), and their other
// ends in the pod that kube-proxy sent each to (from the caller's pod IP, to the port the server
// listens on: the address after the DNAT). Python's urllib opens one connection per call and
// closes it, so a Python service holds none. A client's local port is an ephemeral one, from
// Linux's default net.ipv4.ip_local_port_range (32768 60999), the same at both ends.
import { createHash } from "node:crypto";
import { R } from "../../api/resources.js";
import { systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod, Service } from "../../core/objects.js";
import type { SocketView } from "../../userland/kernel/view.js";
import { listeners } from "./listeners.js";
import { trafficOf } from "./traffic.js";

export function podSockets(ctx: SimContext, pod: Pod): SocketView[] {
  const now = ctx.clock.now();
  const ls = listeners(ctx, pod, now);
  const out: SocketView[] = ls.map((l) => ({
    family: l.family,
    localIp: l.address ?? (l.family === "tcp6" ? "::" : "0.0.0.0"),
    localPort: l.port,
    peerIp: l.family === "tcp6" ? "::" : "0.0.0.0",
    peerPort: 0,
    state: "LISTEN",
    container: l.container,
    comm: l.comm,
  }));
  const app = pod.metadata.labels?.app;
  const m = app ? ctx.catalog.byApp.get(app) : undefined;
  const main = m && ls.find((l) => l.container === m.container);
  if (!m || !main || /^python/.test(m.lang)) return out;
  const st = trafficOf(ctx).state(pod.metadata.namespace ?? "");
  const system = systemOf(m);
  for (const e of system.edges.get(m.key) ?? []) {
    const serving = st.services.get(e.to)?.serving ?? [];
    if (!serving.length) continue;
    const svc = ctx.registry.tryGet(R("Service"), pod.metadata.namespace, e.dep) as Service | undefined;
    const ip =
      svc?.spec?.clusterIP === "None" ? landsOn(pod, e.dep, serving).status?.podIP : svc?.spec?.clusterIP;
    const sp = svc?.spec?.ports?.[0]?.port;
    if (!ip || !sp) continue;
    out.push({
      family: "tcp",
      localIp: pod.status?.podIP ?? "0.0.0.0",
      localPort: ephemeralPort(pod, e.dep),
      peerIp: ip,
      peerPort: sp,
      state: "ESTABLISHED",
      container: main.container,
      comm: main.comm,
    });
  }
  // the server's ends: each pooled connection of a caller's pod that kube-proxy sent here
  const own = st.services.get(m.key)?.serving ?? [];
  if (!own.some((p) => p.metadata.uid === pod.metadata.uid)) return out;
  for (const [from, edges] of system.edges) {
    const caller = system.services.get(from);
    if (!caller || /^python/.test(caller.lang)) continue;
    for (const e of edges) {
      if (e.to !== m.key) continue;
      for (const c of st.services.get(from)?.serving ?? []) {
        if (landsOn(c, e.dep, own).metadata.uid !== pod.metadata.uid || !c.status?.podIP) continue;
        out.push({
          family: "tcp",
          localIp: pod.status?.podIP ?? "0.0.0.0",
          localPort: main.port,
          peerIp: c.status.podIP,
          peerPort: ephemeralPort(c, e.dep),
          state: "ESTABLISHED",
          container: main.container,
          comm: main.comm,
        });
      }
    }
  }
  return out;
}

const hashOf = (text: string) => createHash("sha256").update(text).digest().readUInt32BE(0);

/** The local port of a client pod's pooled connection to a dependency (the same at both ends). */
function ephemeralPort(client: Pod, dep: string): number {
  return 32768 + (hashOf(`${client.metadata.uid}/${dep}:port`) % (60999 - 32768 + 1));
}

/** The serving pod a client pod's pooled connection to a dependency went to (kube-proxy's pick, once). */
function landsOn(client: Pod, dep: string, serving: Pod[]): Pod {
  const sorted = [...serving].sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
  return sorted[hashOf(`${client.metadata.uid}/${dep}:endpoint`) % sorted.length];
}
