// The JSON schema of an env's topology.yaml: what the embedded cluster models for each workload
// (ports, call graph, stores, resource use, start-up, log lines). Field meanings are in the header
// of envs/simple-micro/topology.yaml; `fix` says what to write where a value is wrong or missing.

const name = { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", fix: "a DNS-1123 name" };
const lines = { type: "array", items: { type: "string" }, fix: "a list of log lines ([] for none)" };
const linesByStore = { type: "object", additionalProperties: lines };
const nonNegative = (fix: string) => ({ type: "number", minimum: 0, fix });

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
};

export const LOGS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  fix: "log lines per situation: startup, ready, request, dependencyTimeout, dependencyError, oom",
  properties: {
    startup: lines,
    ready: lines,
    request: lines,
    dependencyTimeout: lines,
    dependencyError: lines,
    oom: lines,
    storeTimeout: linesByStore,
    storeError: linesByStore,
    ioStall: lines,
  },
};

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
    runtime: RUNTIME_SCHEMA,
    logs: LOGS_SCHEMA,
  },
};

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
};

export interface TopologyDoc {
  system: string;
  entry?: { service: string; rps: number; source: string | null }[];
  sidecars?: Record<string, { image?: string; runtime: Runtime; logs?: TopologyLogs }>;
  services: Record<
    string,
    {
      kind?: "Deployment" | "StatefulSet";
      container: string;
      services?: string[];
      port?: number | null;
      protocol?: string;
      lang?: string;
      calls?: string[];
      fanout?: number;
      asyncCalls?: string[];
      stores?: Record<string, string>;
      runtime: Runtime;
      logs?: TopologyLogs;
    }
  >;
}

interface Runtime {
  cpuIdle: number;
  cpuPerRps: number;
  memory: number;
  startupSeconds: number;
  startupCpu: number;
}

interface TopologyLogs {
  startup?: string[];
  ready?: string[];
  request?: string[];
  dependencyTimeout?: string[];
  dependencyError?: string[];
  oom?: string[];
  storeTimeout?: Record<string, string[]>;
  storeError?: Record<string, string[]>;
  ioStall?: string[];
}
