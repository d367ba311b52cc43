// The systems' topologies as data (an env folder's topology.yaml; its schema is
// the benchmark's src/envs/schema-topology.ts),
// given to the embedded cluster by whoever starts it (the CLI loads the env, built-in or a user's
// folder) and indexed the way the simulation asks: a container is known by its pod's `app` label
// and its name, whatever the namespace; a sidecar by its container name alone. Each system's
// call graph is flattened to edges (calls and stores) with a callees-first order, so the traffic
// model can walk it without recursion (a cycle's closing edge is marked `back` and skipped).
// Each edge says how the application finds its callee (`dial`: the variable of its environment,
// the service registry, or a fixed address) and whether it keeps one connection open or opens one
// per call; an entry service's `routes` say which callees each page calls.

export interface Runtime {
  cpuIdle: number;
  cpuPerRps: number;
  memory: number;
  startupSeconds: number;
  startupCpu: number;
}

export interface Logs {
  startup: string[];
  /** Written before `startup` when the instance starts over an empty data directory (its pod's first start). */
  initialize?: string[];
  ready: string[];
  request: string[];
  dependencyTimeout: string[];
  dependencyError: string[];
  oom: string[];
  storeTimeout?: Record<string, string[]>;
  storeError?: Record<string, string[]>;
  ioStall?: string[];
  /** A dependency refused the connection (nothing listens, no endpoint, a policy rejects it). */
  dependencyRefused?: string[];
  /** The dependency's name did not resolve (NXDOMAIN). */
  dependencyDns?: string[];
  /** The lookup got no answer (lost or rejected queries: EAI_AGAIN); else dependencyDns. */
  dependencyDnsTimeout?: string[];
  /** The dependency closed the connection without an answer (reset, HTTPChaos abort). */
  dependencyReset?: string[];
  /** A variable the application reads at start is unset ({var}). */
  missingEnv?: string[];
  /** A host the application resolves at start ({dep}:{depPort}) did not resolve. */
  hostNotFound?: string[];
}

/** How an application finds one dependency. */
export interface Dial {
  /** env: from the container's environment; registry: the pods registered under the callee's
   * name (Nacos: pod IPs); fixed: an address written into the application. */
  via: "env" | "registry" | "fixed";
  /** env: the variable holding host:port. */
  var?: string;
  /** env: the variables holding the host and the port separately. */
  hostVar?: string;
  portVar?: string;
  /** env: the address the application uses when the variable is unset. */
  default?: string;
  /** env without a default, variable unset: the application fails to start, runs without the
   * dependency, or runs and fails every call (an empty address). */
  unset: "exit" | "skip" | "fail";
  /** fixed: host[:port] (no port: the Service's first port). */
  address?: string;
  /** fixed: the host is resolved once, when the application starts (nginx's proxy_pass). */
  resolve?: "start";
  /** One long-lived connection (opened once, reused), or a new connection per call. */
  conn: "pooled" | "per-call";
  /** HTTP: the path the caller requests (hello-service's GET /time). */
  path?: string;
  /** What the caller says failed when the call fails ({what}: "could not retrieve products"). */
  what?: string;
}

/** What one page (path and method) of an entry service calls. */
export interface Route {
  methods: string[];
  path: RegExp;
  /** Callees whose failure fails the page, in the order the handler calls them. */
  calls: string[];
  /** Callees the page calls but whose failure it ignores (the frontend's ads). */
  soft: string[];
  /** The status of a page that succeeds (302 for a redirect). */
  status: number;
  /** The service passes the request on and answers what its callee answers (nginx, a gateway). */
  proxy: boolean;
}

/**
 * What a setting of the application's configuration changes (settings.ts reads them from the
 * container's environment): users: a load generator's simulated users; threads: the request
 * worker pool; timeout: how long it waits for a callee's answer; retries: how often it repeats a
 * call that failed; heapMax: the largest heap its runtime lets grow (the JVM's -Xmx).
 */
export type SettingKind = "users" | "threads" | "timeout" | "retries" | "heapMax";

export interface Setting {
  /** The variables the application reads, the first one set wins. */
  env: string[];
  /** The value is the first group of this expression in the variable (-Xmx(\S+) in JAVA_OPTS). */
  pattern?: string;
  /**
   * The process's command line is read too, with `pattern` (the container's command and args,
   * else the image's CMD): the JVM takes the last -Xmx of its command line, and JAVA_TOOL_OPTIONS
   * comes before the command line, so what the command line says wins over every variable.
   */
  commandLine?: boolean;
  /** What applies when no variable sets it (absent: the application has no such limit). */
  default?: number | string;
  unit: "count" | "duration" | "bytes";
  /** heapMax: Mi the heap grows per request served, up to the maximum. */
  perRequestMi?: number;
  meaning: string;
}

/** How a call failed, as the caller's client words it (`errors.client`). */
export type ClientWords = Partial<Record<"refused" | "dns" | "timeout" | "reset" | "error", string>>;

/** One call of the handler (`errors.steps`), in the order the handler makes them. */
export interface Step {
  /** The callee's key, or a store kind. */
  to: string;
  /** The status the handler answers when this call fails ({err}: the call's error); absent: it goes on. */
  says?: string;
  /** Lines written when the call succeeds (a service's log of what it did). */
  ok?: string[];
  /** Lines written when the call fails and the handler goes on ({err}). */
  warn?: string[];
}

/**
 * What a service's handler answers when it fails, per callee (checkoutservice's PlaceOrder wraps
 * each callee's error in its own words): its calls in order, and its client's words for a call
 * that failed. `rpc`: the gRPC service it implements (an "unknown service" names it).
 */
export interface Errors {
  client: ClientWords;
  steps: Step[];
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
  /** The pages of an entry service and their callees (empty: every request calls `calls`). */
  routes: Route[];
  /** The exit code when a variable it needs at start is unset. */
  missingEnvExitCode: number;
  /** Settings the application reads from its environment. */
  settings: Partial<Record<SettingKind, Setting>>;
  runtime: Runtime;
  logs: Logs;
  /** The gRPC service it implements (hipstershop.CartService). */
  rpc?: string;
  /** How its handler words a failed request, per callee (absent: the logs' templates alone). */
  errors?: Errors;
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
  /** How the caller finds the callee. */
  dial: Dial;
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

/** One system's topology document, as validated by the env loader (src/envs/schema-topology.ts). */
export interface TopologyInput {
  system: string;
  /** An entry without a source has no workload generating its load (source null). */
  entry?: (Omit<Entry, "source"> & { source?: string | null })[];
  sidecars?: Record<string, { runtime: Runtime; logs?: Partial<Logs> }>;
  services: Record<
    string,
    {
      container: string;
      services?: string[];
      port?: number | null;
      protocol?: string;
      lang?: string;
      calls?: string[];
      fanout?: number;
      stores?: Record<string, string>;
      dial?: Record<string, Partial<Dial> & { via: Dial["via"] }>;
      routes?: {
        method?: string[];
        path: string;
        calls: string[];
        soft?: string[];
        status?: number;
        proxy?: boolean;
      }[];
      missingEnvExitCode?: number;
      settings?: Partial<Record<SettingKind, Setting>>;
      runtime: Runtime;
      logs?: Partial<Logs>;
      rpc?: string;
      errors?: { client?: ClientWords; steps?: Step[] };
    }
  >;
}

/** Runtimes whose clients open a connection per call (Python's urllib, nginx's upstreams). */
const PER_CALL_LANGS = /^(python$|nginx)/;

function dialOf(
  m: { lang: string },
  raw: (Partial<Dial> & { via: Dial["via"] }) | undefined,
  host: string,
  store: boolean,
): Dial {
  const conn = raw?.conn ?? (!store && PER_CALL_LANGS.test(m.lang) ? "per-call" : "pooled");
  if (!raw) return { via: "fixed", address: host, unset: "exit", conn };
  return { ...raw, unset: raw.unset ?? "exit", conn };
}

/** Every log situation, empty unless the document gives lines for it. */
function logsOf(raw: Partial<Logs> | undefined): Logs {
  return {
    startup: [],
    ready: [],
    request: [],
    dependencyTimeout: [],
    dependencyError: [],
    oom: [],
    ...raw,
  };
}

function buildSystem(doc: TopologyInput): SystemModel {
  const services = new Map<string, ServiceModel>();
  const bySvcName = new Map<string, string>();
  for (const [key, raw] of Object.entries(doc.services ?? {})) {
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
      routes: (raw.routes ?? []).map((r) => ({
        methods: r.method ?? ["GET", "HEAD"],
        path: new RegExp(`^(?:${r.path})$`),
        calls: r.calls,
        soft: r.soft ?? [],
        status: r.status ?? 200,
        proxy: r.proxy ?? false,
      })),
      missingEnvExitCode: raw.missingEnvExitCode ?? 1,
      settings: raw.settings ?? {},
      runtime: raw.runtime,
      logs: logsOf(raw.logs),
      ...(raw.rpc ? { rpc: raw.rpc } : {}),
      ...(raw.errors ? { errors: { client: raw.errors.client ?? {}, steps: raw.errors.steps ?? [] } } : {}),
    };
    services.set(key, m);
    for (const s of m.services) bySvcName.set(s, key);
  }
  const edges = new Map<string, Edge[]>();
  for (const m of services.values()) {
    const dials = doc.services[m.key].dial ?? {};
    const list: Edge[] = [];
    const per = m.calls.length ? Math.min(1, (m.fanout ?? m.calls.length) / m.calls.length) : 0;
    for (const c of m.calls) {
      const callee = services.get(c);
      if (callee) {
        const dep = callee.services[0] ?? c;
        list.push({ to: c, dep, perReq: per, back: false, dial: dialOf(m, dials[c], dep, false) });
      }
    }
    for (const [kind, svcName] of Object.entries(m.stores)) {
      const to = bySvcName.get(svcName);
      if (to)
        list.push({
          to,
          dep: svcName,
          perReq: REQUEST_STORES.has(kind) ? 1 : 0,
          store: kind,
          back: false,
          dial: dialOf(m, dials[kind], svcName, true),
        });
    }
    edges.set(m.key, list);
  }
  return {
    name: doc.system,
    entries: (doc.entry ?? []).map((e) => ({ ...e, source: e.source ?? null })),
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

const systemOfModel = new WeakMap<ServiceModel, SystemModel>();

/** The catalog of the given systems (the first system to name an app wins). */
export function buildCatalog(docs: TopologyInput[]): Catalog {
  const systems: SystemModel[] = [];
  const byApp = new Map<string, ServiceModel>();
  const sidecars = new Map<string, SidecarModel>();
  for (const doc of docs) {
    const sys = buildSystem(doc);
    systems.push(sys);
    for (const m of sys.services.values()) {
      systemOfModel.set(m, sys);
      if (!byApp.has(m.key)) byApp.set(m.key, m);
    }
    for (const [n, raw] of Object.entries(doc.sidecars ?? {}))
      if (!sidecars.has(n)) sidecars.set(n, { name: n, runtime: raw.runtime, logs: logsOf(raw.logs) });
  }
  return { systems, byApp, sidecars };
}

/**
 * A callee whose failure the service ignores: every page calls it only softly (the frontend's
 * ads), or every call its handler makes to it goes on when it fails (the order confirmation).
 */
export function softOnly(m: ServiceModel, callee: string): boolean {
  const steps = m.errors?.steps.filter((s) => s.to === callee) ?? [];
  if (steps.length && steps.every((s) => s.says === undefined)) return true;
  return m.routes.some((r) => r.soft.includes(callee)) && !m.routes.some((r) => r.calls.includes(callee));
}

export function systemOf(m: ServiceModel): SystemModel {
  const sys = systemOfModel.get(m);
  if (!sys) throw new Error(`service model ${m.key} belongs to no catalog`);
  return sys;
}
