// Which TCP ports a pod listens on now, and who listens: a container's application opens its
// port once it has started (Behavior.startupMs), so a starting or pause-swapped container
// refuses connections. A topology service listens on its `port` (and any other declared ports),
// a sidecar on nothing, any other container on its declared containerPorts. The pod's network
// namespace is shared, so every container of the pod sees all of them.

import type { ContainerRef } from "../../context/behavior.js";
import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { containerRef } from "../../metrics/usage.js";
import { commandLine, imageTools, isPause, runtimeOf } from "../../userland/toolbox.js";

export interface Listener {
  port: number;
  container: string;
  model?: ServiceModel;
  /** What speaks on the port: http, grpc, mysql, redis, amqp. */
  protocol: string;
  /** tcp (0.0.0.0) or tcp6 (:::, dual stack) as netstat shows it. */
  family: "tcp" | "tcp6";
  /** The listening process's name. */
  comm: string;
}

/** Runtimes that bind the IPv6 wildcard (dual stack). */
const V6 = new Set(["java", "go", "node", "dotnet", "erlang", "mysqld"]);
const PROTOCOL_BY_RUNTIME: Record<string, string> = { mysqld: "mysql", redis: "redis", erlang: "amqp" };

/**
 * Who listens in the pod now. `self` is a container instance as its kubelet knows it (exact start,
 * restart count), which the pod's status may not show yet; the others are read from the status.
 */
export function listeners(ctx: SimContext, pod: Pod, now: number, self?: ContainerRef): Listener[] {
  const cat = ctx.catalog;
  const out: Listener[] = [];
  for (const spec of pod.spec?.containers ?? []) {
    if (isPause(spec) || cat.sidecars.has(spec.name)) continue;
    const ref = self?.container.name === spec.name ? self : containerRef(pod, spec.name, ctx.clock);
    if (!ref || now - ref.startedAt < ctx.behavior.startupMs(ref)) continue;
    const app = pod.metadata.labels?.app;
    const m = app && cat.byApp.get(app)?.container === spec.name ? cat.byApp.get(app) : undefined;
    const runtime = runtimeOf(spec);
    const comm = commandLine(spec)[0].split(" ")[0].replace(/:$/, "").split("/").pop()!;
    const ports = new Set<number>();
    if (m?.port) ports.add(m.port);
    for (const cp of spec.ports ?? [])
      if ((cp.protocol ?? "TCP") === "TCP" && cp.containerPort) ports.add(Number(cp.containerPort));
    for (const port of ports)
      out.push({
        port,
        container: spec.name,
        model: m,
        protocol: m && port === m.port ? m.protocol : (PROTOCOL_BY_RUNTIME[runtime] ?? "http"),
        family: V6.has(runtime) || /^(java|go|nodejs|c#|erlang|mysql)/.test(m?.lang ?? "") ? "tcp6" : "tcp",
        comm: imageTools(String(spec.image)).runtime === "nginx" ? "nginx" : comm,
      });
  }
  return out;
}
