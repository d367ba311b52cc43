// The address an application dials for one dependency, as its code finds it (the topology's
// `dial`): a variable of the container's environment (the one the kubelet created it with,
// userland/env.ts), the service registry (Nacos hands out the pod IPs of the instances that
// registered, never the Service), or an address written into the application (nginx's
// proxy_pass). A variable that is unset gives the application's default, or no address at all:
// then the application either fails to start (Online-Boutique's Go services:
// mustMapEnv panics) or runs without the dependency (cartservice without REDIS_ADDR).

import type { Dial, Edge, ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Container, Pod } from "../../core/objects.js";
import { keptEnv } from "../../userland/env.js";

export type Address =
  /** A host and port (no port: the Service's first port, as a bare Service name is dialled). */
  | { kind: "addr"; host: string; port?: number }
  /** The registry's instances of the callee. */
  | { kind: "registry" }
  /** No address: the application makes no such calls (an optional dependency left unset). */
  | { kind: "none" }
  /** A value the client cannot dial ("" or no port number): the lookup fails. */
  | { kind: "bad"; raw: string };

const mainSpec = (pod: Pod, m: ServiceModel): Container | undefined =>
  (pod.spec?.containers ?? []).find((c) => c.name === m.container);

/** host:port as Go's net.SplitHostPort and the other clients read it. */
export function parseAddress(raw: string): Address {
  const m = raw.match(/^([^:\s]+)(?::(\d{1,5}))?$/);
  if (!m) return { kind: "bad", raw };
  return m[2] === undefined ? { kind: "addr", host: m[1] } : { kind: "addr", host: m[1], port: Number(m[2]) };
}

/**
 * The address in a variable's value. A Redis client's is a configuration string:
 * StackExchange.Redis's ConfigurationOptions.Parse splits it at commas into endpoints and
 * key=value options (`redis-cart:6379,password=x`, whose password store-auth.ts reads) and
 * connects to the first endpoint; any other client reads the whole value as host:port.
 */
function addressIn(e: Edge, value: string): string {
  if (e.store !== "redis") return value;
  const parts = value.split(",").map((p) => p.trim());
  return parts.find((p) => p !== "" && !p.includes("=")) ?? "";
}

/** The variables a dial reads from the environment. */
export const varsOf = (d: Dial): string[] =>
  d.via !== "env" ? [] : d.var ? [d.var] : [d.hostVar, d.portVar].filter((v): v is string => !!v);

/** Whether the application treats the value as unset (Go's mustMapEnv: v == ""). */
const unsetValue = (v: string | undefined) => v === undefined || v === "";

/** The address the caller's container dials for the edge. */
export function addressOf(ctx: SimContext, pod: Pod, m: ServiceModel, e: Edge): Address {
  const d = e.dial;
  if (d.via === "registry") return { kind: "registry" };
  if (d.via === "fixed") return parseAddress(d.address ?? e.dep);
  const spec = mainSpec(pod, m);
  const env: ReadonlyMap<string, string> = spec ? keptEnv(ctx, pod, spec) : new Map<string, string>();
  const unset = (): Address =>
    d.default ? parseAddress(d.default) : d.unset === "fail" ? { kind: "bad", raw: "" } : { kind: "none" };
  if (d.var) {
    const v = env.get(d.var);
    return unsetValue(v) ? unset() : parseAddress(addressIn(e, v!));
  }
  const host = env.get(d.hostVar!);
  const port = env.get(d.portVar!);
  if (unsetValue(host) || unsetValue(port)) return unset();
  return /^\d{1,5}$/.test(port!)
    ? { kind: "addr", host: host!, port: Number(port) }
    : { kind: "bad", raw: `${host}:${port}` };
}

/**
 * The variables a container needs at start that its environment lacks (those without a default
 * whose absence stops the application), in the order the application reads them.
 */
export function missingAtStart(
  ctx: SimContext,
  pod: Pod,
  m: ServiceModel,
  edges: Edge[],
  restartCount?: number,
): string[] {
  const spec = mainSpec(pod, m);
  if (!spec) return [];
  const env = keptEnv(ctx, pod, spec, restartCount);
  const out: string[] = [];
  for (const e of edges) {
    const d = e.dial;
    if (d.via !== "env" || d.default || d.unset !== "exit") continue;
    for (const v of varsOf(d)) if (unsetValue(env.get(v)) && !out.includes(v)) out.push(v);
  }
  return out;
}

/** Variables left unset that make the application run without the dependency (its start-up note). */
export function skippedAtStart(
  ctx: SimContext,
  pod: Pod,
  m: ServiceModel,
  edges: Edge[],
  restartCount?: number,
): string[] {
  const spec = mainSpec(pod, m);
  if (!spec) return [];
  const env = keptEnv(ctx, pod, spec, restartCount);
  return edges
    .filter((e) => e.dial.via === "env" && !e.dial.default && e.dial.unset === "skip")
    .flatMap((e) => varsOf(e.dial))
    .filter((v) => unsetValue(env.get(v)));
}
