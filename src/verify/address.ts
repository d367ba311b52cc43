// Where an application's call goes, from its environment as the application reads it (the
// system's topology says which variables: a `dial` of envs/<system>/topology.yaml), and the
// system's facts the calls check needs: who calls a service, what protocol it speaks. Pure.
import type { EnvSpec } from "../envs/env.js";
import type { TopologyDial } from "../envs/schema-topology.js";

type Topology = EnvSpec["topology"];
type TopologyService = Topology["services"][string];

export interface Address {
  host: string;
  port?: number;
  /** The URL's path, when the value is a URL with one. */
  path?: string;
}

const SCHEME_PORTS: Record<string, number> = { http: 80, https: 443, redis: 6379, rediss: 6379, mysql: 3306 };

/**
 * host and port out of an address variable's value: `host:port`, a URL (`http://host:port/path`,
 * `redis://:pw@host:port`, `jdbc:mysql://host:port/db`), or a client library's connection string
 * (StackExchange.Redis's `host:port,password=x`: the endpoints come first).
 */
export function parseAddress(value: string): Address | undefined {
  const v = value.trim().replace(/^jdbc:/i, "");
  const url = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^:/?#,]+)(?::(\d+))?([^?#,]*)/i.exec(v);
  if (url) {
    const port = url[3] ? Number(url[3]) : SCHEME_PORTS[url[1].toLowerCase()];
    return { host: url[2], ...(port ? { port } : {}), ...(url[4] ? { path: url[4] } : {}) };
  }
  const m = /^(\[[^\]]+\]|[^:/\s,=]+)(?::(\d+))?$/.exec(v.split(",")[0].trim());
  if (!m) return undefined;
  return { host: m[1], ...(m[2] ? { port: Number(m[2]) } : {}) };
}

/** The dial of a service's topology that reads `variable` (as host:port, or as its host or its port). */
export function dialOf(
  svc: TopologyService | undefined,
  variable: string,
): { key: string; dial: TopologyDial } | undefined {
  for (const [key, dial] of Object.entries(svc?.dial ?? {}))
    if (dial.via === "env" && [dial.var, dial.hostVar, dial.portVar].includes(variable)) return { key, dial };
  return undefined;
}

/**
 * The address a call goes to, from the application's environment: the dial's variable (or its
 * host and port variables), else the default the application falls back to; a variable the
 * topology does not describe is read as host:port. A string says why there is none.
 */
export function dialedAddress(
  dial: TopologyDial | undefined,
  variable: string,
  env: Map<string, string>,
  defaultPort?: number,
): Address | string {
  const fallback = dial?.default ? parseAddress(dial.default) : undefined;
  if (dial?.hostVar || dial?.portVar) {
    const host = (dial.hostVar && env.get(dial.hostVar)) || fallback?.host;
    const raw = (dial.portVar && env.get(dial.portVar)) || fallback?.port;
    const port = Number(raw ?? defaultPort);
    if (!host) return `${dial.hostVar} is not set and the application has no default`;
    if (!Number.isInteger(port) || port <= 0) return `${dial.portVar}=${raw} is not a port`;
    return { host, port };
  }
  const name = dial?.var ?? variable;
  const value = env.get(name) ?? dial?.default;
  if (value === undefined) return `${name} is not set and the application has no default`;
  const a = parseAddress(value);
  if (!a) return `${name}=${value} is not an address`;
  const port = a.port ?? defaultPort;
  if (port === undefined) return `${name}=${value} names no port`;
  return { ...a, port };
}

/** The services of the topology that call `target`, or use it as a store. */
export function callersOf(topology: Topology, target: string): string[] {
  const names = new Set([target, ...(topology.services[target]?.services ?? [])]);
  return Object.entries(topology.services)
    .filter(
      ([key, s]) =>
        key !== target &&
        ((s.calls ?? []).includes(target) || Object.values(s.stores ?? {}).some((n) => names.has(n))),
    )
    .map(([key]) => key);
}

/** The protocol of what a dial reaches: the callee's, or the store kind's (mysql, redis). */
export function protocolOf(topology: Topology, key: string): string {
  return topology.services[key]?.protocol ?? key;
}

/** The port a protocol's client uses when the address names none. */
export const defaultPortOf = (protocol: string): number | undefined => SCHEME_PORTS[protocol];

/**
 * The password a connection string gives for `host` (StackExchange.Redis's `host:port,password=x`,
 * a `redis://[user]:pw@host:port` URL): a string, null when it names the host with no password,
 * undefined when it does not name the host.
 */
export function passwordIn(value: string, host: string): string | null | undefined {
  const names = (h: string) => h === host || h.startsWith(`${host}.`);
  const url = /^rediss?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^:/?]+)/.exec(value);
  if (url) return names(url[3]) ? (url[2] ?? null) : undefined;
  const parts = value.split(",").map((p) => p.trim());
  if (!parts.some((p) => !p.includes("=") && names(p.split(":")[0]))) return undefined;
  const pw = parts.find((p) => /^password=/i.test(p));
  return pw ? pw.slice(pw.indexOf("=") + 1) : null;
}

/** A path pattern as HTTPChaos matches it: `*` any run of characters, `?` one. */
export function wildcard(pattern: string): RegExp {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${re}$`);
}

/**
 * A request to a route given as a pattern: the first of the system's own requests (its user check)
 * whose path the pattern matches, with its method and body; else the pattern with each wildcard
 * filled in.
 */
export function routeRequest<R extends { url: string }>(
  pattern: string,
  known: R[],
): { path: string; like?: R } {
  const re = wildcard(pattern);
  for (const r of known) {
    const path = new URL(r.url).pathname;
    if (re.test(path)) return { path, like: r };
  }
  return { path: pattern.replace(/\*/g, "x").replace(/\?/g, "x") };
}
