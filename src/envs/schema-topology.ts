// The JSON schema of an env's topology.yaml: what the embedded cluster models for each workload
// (ports, call graph, stores, resource use, start-up, log lines). Field meanings are in the header
// of envs/simple-micro/topology.yaml; `fix` says what to write where a value is wrong or missing.
// The types the benchmark reads a topology with are derived from these schemas (FromSchema); the
// simulator declares its own input (TopologyInput), and the CLI, which hands one to the other,
// is where the compiler checks that they agree.
import type { FromSchema } from "../util/schema-type.js";

const name = { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", fix: "a DNS-1123 name" } as const;
const lines = { type: "array", items: { type: "string" }, fix: "a list of log lines ([] for none)" } as const;
const linesByStore = { type: "object", additionalProperties: lines } as const;
const nonNegative = (fix: string) => ({ type: "number", minimum: 0, fix }) as const;

export const RUNTIME_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["cpuIdle", "cpuPerRps", "memory", "startupSeconds", "startupCpu"],
  fix: "{cpuIdle: 2, cpuPerRps: 4, memory: 40, startupSeconds: 2, startupCpu: 200}",
  properties: {
    cpuIdle: nonNegative("millicores with no traffic, e.g. 2"),
    cpuPerRps: nonNegative("extra millicores per request/s, e.g. 4"),
    memory: nonNegative("working set in Mi, e.g. 40"),
    startupSeconds: nonNegative("seconds from start to serving, e.g. 2"),
    startupCpu: nonNegative("millicores while starting, e.g. 200"),
  },
} as const;

export const LOGS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  fix: "log lines per situation: startup, ready, request, dependencyTimeout, dependencyError, oom",
  properties: {
    startup: lines,
    initialize: lines,
    ready: lines,
    request: lines,
    dependencyTimeout: lines,
    dependencyError: lines,
    oom: lines,
    storeTimeout: linesByStore,
    storeError: linesByStore,
    ioStall: lines,
    dependencyRefused: lines,
    dependencyDns: lines,
    dependencyDnsTimeout: lines,
    dependencyReset: lines,
    missingEnv: lines,
    hostNotFound: lines,
  },
} as const;

const ADDRESS = {
  type: "string",
  pattern: "^[^:\\s]+(:[0-9]+)?$",
  fix: "host:port, e.g. time-service:5001",
} as const;
const ENV_NAME = {
  type: "string",
  pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
  fix: "an environment variable name",
} as const;

/** How the application finds one dependency (a key of `calls`, or a store kind of `stores`). */
export const DIAL_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["via"],
  fix: "{via: env, var: TIME_SERVICE_ADDR} | {via: registry} | {via: fixed, address: host:port}",
  properties: {
    via: { enum: ["env", "registry", "fixed"] },
    var: { ...ENV_NAME, fix: "the variable holding host:port" },
    hostVar: { ...ENV_NAME, fix: "the variable holding the host (with portVar)" },
    portVar: { ...ENV_NAME, fix: "the variable holding the port (with hostVar)" },
    default: { ...ADDRESS, fix: "the address the application uses when the variable is unset" },
    unset: {
      enum: ["exit", "skip", "fail"],
      fix: "exit: the application fails to start; skip: it runs without; fail: its calls fail",
    },
    address: ADDRESS,
    resolve: {
      enum: ["start"],
      fix: "start: the host is resolved once, when the application starts (nginx's proxy_pass)",
    },
    conn: { enum: ["pooled", "per-call"], fix: "pooled (a long-lived connection) or per-call" },
    path: { type: "string", pattern: "^/", fix: "the HTTP path the caller requests, e.g. /time" },
    what: {
      type: "string",
      fix: "what the caller's error says failed ({what}), e.g. could not retrieve products",
    },
  },
} as const;

const ROUTE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["path", "calls"],
  properties: {
    method: { type: "array", items: { enum: ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"] } },
    path: { type: "string", fix: "a regular expression on the URL path, e.g. /product/[^/]+" },
    calls: { type: "array", items: name, fix: "keys of `calls` the route calls, in order" },
    soft: { type: "array", items: name, fix: "keys of `calls` the route calls but whose failure it ignores" },
    proxy: {
      type: "boolean",
      fix: "true: the service passes the request to its callee and answers what it answers",
    },
    status: {
      type: "integer",
      minimum: 100,
      maximum: 599,
      fix: "the status of a successful answer, e.g. 302",
    },
  },
} as const;

/** A setting the application reads from its environment (settings: in topology.yaml). */
const SETTING_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["env", "unit", "meaning"],
  fix: "{env: USERS, default: 10, unit: count, meaning: ...}",
  properties: {
    env: { type: "array", items: ENV_NAME, minItems: 1, fix: "the variables read, first set wins" },
    pattern: { type: "string", fix: "a regular expression whose first group is the value, e.g. -Xmx(\\S+)" },
    commandLine: {
      type: "boolean",
      fix: "true: the process's command line is read too (its last match wins over every variable)",
    },
    default: { type: ["number", "string"], fix: "the value when no variable sets it" },
    unit: { enum: ["count", "duration", "bytes"] },
    perRequestMi: nonNegative("Mi the heap grows per request served, e.g. 2"),
    meaning: { type: "string", fix: "what the application does with it" },
  },
} as const;

/** How the handler words a failed request per callee (its calls in order; its client's words). */
const ERRORS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  fix: "{client: {refused: ..., dns: ..., timeout: ..., reset: ..., error: ...}, steps: [{to: callee, says: ...}]}",
  properties: {
    client: {
      type: "object",
      additionalProperties: false,
      properties: {
        refused: { type: "string" },
        dns: { type: "string" },
        timeout: { type: "string" },
        reset: { type: "string" },
        error: { type: "string" },
      },
    },
    steps: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["to"],
        properties: {
          to: { type: "string", fix: "a callee key or a store kind" },
          says: { type: "string", fix: "the status it answers when this call fails ({err})" },
          ok: lines,
          warn: lines,
        },
      },
    },
  },
} as const;

const SERVICE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["container", "runtime"],
  properties: {
    kind: { enum: ["Deployment", "StatefulSet"] },
    container: { ...name, fix: "the name of the pod's first container" },
    services: { type: "array", items: name, fix: "names of the Services that select this workload" },
    port: { type: ["integer", "null"], minimum: 1, maximum: 65535, fix: "the container port it serves on" },
    protocol: { enum: ["http", "grpc", "mysql", "redis", "amqp", "none"] },
    lang: { type: "string", fix: "language or framework, e.g. python, java, go, nodejs" },
    calls: { type: "array", items: name, fix: "keys of the services it calls" },
    fanout: { type: "number", minimum: 0, fix: "outgoing calls per request, e.g. 1" },
    asyncCalls: { type: "array", items: name },
    stores: {
      type: "object",
      propertyNames: { enum: ["mysql", "redis", "nacos", "rabbitmq"] },
      additionalProperties: name,
      fix: "store kind (mysql, redis, nacos, rabbitmq) -> the Service name it dials",
    },
    dial: {
      type: "object",
      additionalProperties: DIAL_SCHEMA,
      fix: "per callee key or store kind: {via: env|registry|fixed, ...}",
    },
    routes: { type: "array", items: ROUTE_SCHEMA, fix: "[{method: [GET], path: /, calls: [...]}]" },
    missingEnvExitCode: { type: "integer", minimum: 1, maximum: 255, fix: "the exit code, e.g. 2" },
    settings: {
      type: "object",
      propertyNames: { enum: ["users", "threads", "timeout", "retries", "heapMax"] },
      additionalProperties: SETTING_SCHEMA,
      fix: "per setting kind (users, threads, timeout, retries, heapMax): {env: [NAME], unit, meaning}",
    },
    runtime: RUNTIME_SCHEMA,
    logs: LOGS_SCHEMA,
    rpc: { type: "string", fix: "the gRPC service it implements, e.g. hipstershop.CartService" },
    errors: ERRORS_SCHEMA,
  },
} as const;

export const TOPOLOGY_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["system", "services"],
  properties: {
    system: { ...name, fix: "the env's name (env.yaml `name`)" },
    entry: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["service", "rps"],
        properties: {
          service: { ...name, fix: "the service key whose Service receives user traffic" },
          rps: nonNegative("requests per second in the steady state, e.g. 2"),
          source: { type: ["string", "null"], fix: "the workload that generates the load, or null" },
        },
      },
    },
    sidecars: {
      type: "object",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        required: ["runtime"],
        properties: { image: { type: "string" }, runtime: RUNTIME_SCHEMA, logs: LOGS_SCHEMA },
      },
    },
    services: {
      type: "object",
      minProperties: 1,
      fix: "one entry per Deployment/StatefulSet of the manifests, keyed by its name",
      additionalProperties: SERVICE_SCHEMA,
    },
  },
} as const;

/** One system's topology.yaml, as its schema validates it. */
export type TopologyDoc = FromSchema<typeof TOPOLOGY_SCHEMA>;
/** How a service finds one dependency (a `dial` of the topology). */
export type TopologyDial = FromSchema<typeof DIAL_SCHEMA>;
