// The systems' topologies as data (envs/*/topology.yaml, schema in each file's header), loaded
// once and indexed the way the simulation asks: a container is known by its pod's `app` label
// and its name, whatever the namespace; a sidecar by its container name alone. Each system's
// call graph is flattened to edges (calls and stores) with a callees-first order, so the traffic
// model can walk it without recursion (a cycle's closing edge is marked `back` and skipped).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { packageRoot } from "../../../util/paths.js";

export interface Runtime {
  cpuIdle: number;
  cpuPerRps: number;
  memory: number;
  startupSeconds: number;
  startupCpu: number;
}

export interface Logs {
  startup: string[];
  ready: string[];
  request: string[];
  dependencyTimeout: string[];
  dependencyError: string[];
  oom: string[];
  storeTimeout?: Record<string, string[]>;
  storeError?: Record<string, string[]>;
  ioStall?: string[];
}

export interface ServiceModel {
  key: string;
  system: string;
  container: string;
  services: string[];
  port: number | null;
  protocol: string;
  lang: string;
  calls: string[];
  fanout?: number;
  stores: Record<string, string>;
  runtime: Runtime;
  logs: Logs;
}

export interface SidecarModel {
  name: string;
  runtime: Runtime;
  logs: Logs;
}

/** One outgoing dependency of a service. */
export interface Edge {
  /** The callee's topology key. */
  to: string;
  /** The Service name dialed ({dep} in the logs). */
  dep: string;
  /** Calls per request received (0 for registry/broker heartbeats). */
  perReq: number;
  /** Store kind (mysql, redis, nacos, rabbitmq) for a store, undefined for a call. */
  store?: string;
  /** Closes a cycle: ignored when latency and errors flow up the graph. */
  back: boolean;
}

export interface Entry {
  service: string;
  rps: number;
  source: string | null;
}

export interface SystemModel {
  name: string;
  entries: Entry[];
  services: Map<string, ServiceModel>;
  edges: Map<string, Edge[]>;
  /** Service keys, callees before their callers. */
  order: string[];
}

export interface Catalog {
  systems: SystemModel[];
  byApp: Map<string, ServiceModel>;
  sidecars: Map<string, SidecarModel>;
}

/** Stores that every request touches; registries and brokers are background traffic. */
const REQUEST_STORES = new Set(["mysql", "redis"]);

// biome-ignore lint/suspicious/noExplicitAny: the YAML document, checked field by field below
type J = any;

function buildSystem(doc: J): SystemModel {
  const services = new Map<string, ServiceModel>();
  const bySvcName = new Map<string, string>();
  for (const [key, raw] of Object.entries<J>(doc.services ?? {})) {
    const m: ServiceModel = {
      key,
      system: doc.system,
      container: raw.container,
      services: raw.services ?? [],
      port: raw.port ?? null,
      protocol: raw.protocol ?? "none",
      lang: raw.lang ?? "",
      calls: raw.calls ?? [],
      fanout: raw.fanout,
      stores: raw.stores ?? {},
      runtime: raw.runtime,
      logs: raw.logs ?? {},
    };
    services.set(key, m);
    for (const s of m.services) bySvcName.set(s, key);
  }
  const edges = new Map<string, Edge[]>();
  for (const m of services.values()) {
    const list: Edge[] = [];
    const per = m.calls.length ? Math.min(1, (m.fanout ?? m.calls.length) / m.calls.length) : 0;
    for (const c of m.calls) {
      const callee = services.get(c);
      if (callee) list.push({ to: c, dep: callee.services[0] ?? c, perReq: per, back: false });
    }
    for (const [kind, svcName] of Object.entries(m.stores)) {
      const to = bySvcName.get(svcName);
      if (to)
        list.push({ to, dep: svcName, perReq: REQUEST_STORES.has(kind) ? 1 : 0, store: kind, back: false });
    }
    edges.set(m.key, list);
  }
  return {
    name: doc.system,
    entries: doc.entry ?? [],
    services,
    edges,
    order: calleesFirst(services, edges),
  };
}

/** Depth-first post-order: callees come before callers; an edge to a node on the path is `back`. */
function calleesFirst(services: Map<string, ServiceModel>, edges: Map<string, Edge[]>): string[] {
  const order: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (k: string) => {
    state.set(k, "open");
    for (const e of edges.get(k) ?? []) {
      const s = state.get(e.to);
      if (s === "open") e.back = true;
      else if (!s) visit(e.to);
    }
    state.set(k, "done");
    order.push(k);
  };
  for (const k of [...services.keys()].sort()) if (!state.has(k)) visit(k);
  return order;
}

let cached: Catalog | undefined;

/** Every envs/<system>/topology.yaml under the package root (read once). */
export function loadCatalog(): Catalog {
  if (cached) return cached;
  const dir = join(packageRoot(), "envs");
  const systems: SystemModel[] = [];
  const byApp = new Map<string, ServiceModel>();
  const sidecars = new Map<string, SidecarModel>();
  const names = existsSync(dir) ? readdirSync(dir).sort() : [];
  for (const name of names) {
    const file = join(dir, name, "topology.yaml");
    if (!existsSync(file)) continue;
    const doc = parse(readFileSync(file, "utf8"));
    const sys = buildSystem(doc);
    systems.push(sys);
    // the first system to name an app wins (the three systems' names do not overlap)
    for (const m of sys.services.values()) if (!byApp.has(m.key)) byApp.set(m.key, m);
    for (const [n, raw] of Object.entries<J>(doc.sidecars ?? {}))
      if (!sidecars.has(n)) sidecars.set(n, { name: n, runtime: raw.runtime, logs: raw.logs ?? {} });
  }
  cached = { systems, byApp, sidecars };
  return cached;
}

export function systemOf(m: ServiceModel): SystemModel {
  return loadCatalog().systems.find((s) => s.name === m.system)!;
}
