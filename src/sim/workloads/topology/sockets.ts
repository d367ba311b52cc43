// The TCP sockets of a pod's network namespace, which netstat and ss list and /proc/net/tcp
// holds. The namespace is the pod's, so every container sees the ports all containers listen on
// (listeners.ts: open once the application started). Established connections: the pooled client
// connections of the application to the dependencies that have a Ready endpoint (to the
// Service's ClusterIP, which is what the socket sees before kube-proxy's DNAT). Python's
// urllib opens one connection per call and closes it, so a Python service holds none.
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
  let port = 40000 + ((pod.metadata.uid ?? "").charCodeAt(0) % 50) * 100;
  for (const e of systemOf(m).edges.get(m.key) ?? []) {
    if (!st.services.get(e.to)?.serving.length) continue;
    const svc = ctx.registry.tryGet(R("Service"), pod.metadata.namespace, e.dep) as Service | undefined;
    const ip =
      svc?.spec?.clusterIP === "None"
        ? st.services.get(e.to)!.serving[0].status?.podIP
        : svc?.spec?.clusterIP;
    const sp = svc?.spec?.ports?.[0]?.port;
    if (!ip || !sp) continue;
    port += 7;
    out.push({
      family: "tcp",
      localIp: pod.status?.podIP ?? "0.0.0.0",
      localPort: port,
      peerIp: ip,
      peerPort: sp,
      state: "ESTABLISHED",
      container: main.container,
      comm: main.comm,
    });
  }
  return out;
}
