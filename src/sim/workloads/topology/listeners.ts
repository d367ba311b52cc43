// Which TCP ports a pod listens on now, and who listens: a container's application opens its
// port once it has started (Behavior.startupMs), so a starting or pause-swapped container
// refuses connections. A topology service listens on its `port` (and any other declared ports),
// unless one of them was already bound when it opened them (binds.ts: it exits instead); a
// sidecar on nothing; any other container on its declared containerPorts; and a process the
// simulation runs on what it bound (`nc -l`). The pod's network namespace is shared, so every
// container of the pod sees all of them.

import type { ContainerRef } from "../../context/behavior.js";
import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";
import { containerRef } from "../../metrics/usage.js";
import { mysqldOptions } from "../../userland/mysqld-options.js";
import { commandLine, imageTools, isPause, runtimeOf } from "../../userland/toolbox.js";
import { appLaunched, appScript } from "../launch.js";
import { bindBook } from "./binds.js";
import { instanceKey } from "./processes.js";

export interface Listener {
  port: number;
  container: string;
  model?: ServiceModel;
  /** What speaks on the port: http, grpc, mysql, redis, amqp; echo for `nc -l -e cat`. */
  protocol: string;
  /** tcp (0.0.0.0) or tcp6 (:::, dual stack) as netstat shows it. */
  family: "tcp" | "tcp6";
  /** The listening process's name. */
  comm: string;
  /** The script the application runs, when its command gave one (what it serves follows it). */
  script?: string;
  /** The one address it is bound to, when not every address (mysqld's bind-address). */
  address?: string;
}

/** Runtimes that bind the IPv6 wildcard (dual stack). */
const V6 = new Set(["java", "go", "node", "dotnet", "erlang", "mysqld"]);
const PROTOCOL_BY_RUNTIME: Record<string, string> = { mysqld: "mysql", redis: "redis", erlang: "amqp" };

/** The TCP ports a container's application opens: the model's port and the declared ones. */
export function appPorts(spec: Container, m: ServiceModel | undefined): number[] {
  const ports = new Set<number>();
  if (m?.port) ports.add(m.port);
  for (const cp of spec.ports ?? [])
    if ((cp.protocol ?? "TCP") === "TCP" && cp.containerPort) ports.add(Number(cp.containerPort));
  return [...ports];
}

/**
 * The port an application instance found already bound when it opened its ports (its start-up
 * end), if one was: it then exits instead of listening. Undefined before that moment.
 */
export function portTakenAtOpen(ctx: SimContext, ref: ContainerRef, ports: number[]): number | undefined {
  if (!ports.length) return undefined;
  const pod = ref.pod;
  const key = instanceKey(pod, ref.container.name, ref.restartCount);
  const at = ref.startedAt + ctx.behavior.startupMs(ref);
  const uid = pod.metadata.uid ?? "";
  return bindBook(ctx).takenAtOpen(uid, key, ref.container.name, ports, at, ctx.clock.now()) ?? undefined;
}

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
    // a command the simulation runs listens once it became the application (launch.ts)
    if (m && !appLaunched(ctx, pod, spec.name, ref.restartCount)) continue;
    const script = m ? appScript(ctx, pod, spec.name, ref.restartCount) : undefined;
    const runtime = runtimeOf(spec);
    const comm = commandLine(spec)[0].split(" ")[0].replace(/:$/, "").split("/").pop()!;
    const ports = appPorts(spec, m);
    // an application whose port was taken exits rather than listen on the others
    if (m && portTakenAtOpen(ctx, ref, ports) !== undefined) continue;
    // a MySQL server listens where its option files said when it started
    const address =
      runtime === "mysqld" ? mysqldOptions(ctx, pod, spec, ref.restartCount).bindAddress : undefined;
    const v4 = address !== undefined && /^\d+\.\d+\.\d+\.\d+$/.test(address);
    for (const port of ports)
      out.push({
        port,
        container: spec.name,
        model: m,
        protocol: m && port === m.port ? m.protocol : (PROTOCOL_BY_RUNTIME[runtime] ?? "http"),
        family:
          !v4 && (V6.has(runtime) || /^(java|go|nodejs|c#|erlang|mysql)/.test(m?.lang ?? ""))
            ? "tcp6"
            : "tcp",
        comm: imageTools(String(spec.image)).runtime === "nginx" ? "nginx" : comm,
        ...(script ? { script } : {}),
        ...(address !== undefined ? { address } : {}),
      });
  }
  for (const b of bindBook(ctx).active(pod.metadata.uid ?? "", now))
    if (!out.some((l) => l.port === b.port))
      out.push({ port: b.port, container: b.container, protocol: "echo", family: "tcp", comm: b.comm });
  return out;
}
