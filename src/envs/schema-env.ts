// The JSON schema of an env's env.yaml (field meanings: the header of envs/simple-micro/env.yaml).
const name = { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" };
const file = (what: string) => ({
  type: "string",
  minLength: 1,
  fix: `the ${what} file, relative to env.yaml`,
});

/** The reference's seven failure types. */
export const REFERENCE_FAILURE_IDS = [
  "cpu-stress",
  "memory-stress",
  "disk-io",
  "network-loss",
  "network-delay",
  "pod-fail",
  "pod-config-error",
];

/** The expert tier's twenty (docs/expert-tier.md). */
export const EXPERT_FAILURE_IDS = [
  "image-bad-tag",
  "bad-command",
  "env-wrong-addr",
  "env-missing",
  "env-shadowed",
  "svc-targetport",
  "svc-selector",
  "svc-deleted",
  "readiness-bad",
  "liveness-bad",
  "init-hang",
  "cache-auth",
  "cpu-throttle",
  "oom-limit",
  "unschedulable",
  "sidecar-port",
  "netpol-deny",
  "scale-zero",
  "http-abort",
  "network-partition",
];

export const FAILURE_IDS = [...REFERENCE_FAILURE_IDS, ...EXPERT_FAILURE_IDS];

/** A fault target: a Deployment's name, or one with the parameters its failure's template reads. */
const target = {
  oneOf: [
    name,
    {
      type: "object",
      additionalProperties: false,
      required: ["service", "params"],
      properties: {
        service: name,
        params: {
          type: "object",
          fix: "the values of the failure template's placeholders, e.g. {var: X, value: y}",
        },
      },
    },
  ],
  fix: "a Deployment's name, or {service: <name>, params: {...}} for a failure whose template needs values",
};

const userRequest = {
  type: "object",
  additionalProperties: false,
  required: ["name", "url"],
  properties: {
    name: { type: "string", minLength: 1 },
    url: {
      type: "string",
      pattern: "^https?://",
      fix: "an http URL inside the namespace, e.g. http://frontend:80/",
    },
    method: { enum: ["GET", "POST"], default: "GET" },
    data: { type: "string", fix: "the request body of a POST, as the form or JSON the page sends" },
    contentType: { type: "string" },
  },
};

export const ENV_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: [
    "name",
    "defaultNamespace",
    "manifests",
    "sourceConfig",
    "topology",
    "faultTargets",
    "pingTarget",
  ],
  properties: {
    name: { ...name, fix: "the system's id, a DNS-1123 name such as my-shop" },
    defaultNamespace: { ...name, fix: "a DNS-1123 namespace name, e.g. my-shop" },
    manifests: file("manifests (everything to deploy)"),
    sourceConfig: file("source config (the fault targets' original Deployments)"),
    topology: file("topology (what the embedded cluster models)"),
    readyTimeoutSeconds: { type: "number", minimum: 1, default: 300, fix: "seconds, e.g. 300" },
    faultTargets: {
      type: "object",
      minProperties: 1,
      propertyNames: { enum: FAILURE_IDS },
      additionalProperties: {
        type: "array",
        items: target,
        minItems: 1,
        fix: "the Deployments (by name) a case of this failure may target",
      },
      fix: "per failure id, the Deployments a case may target, e.g. {pod-fail: [web]}",
    },
    incidentTargets: {
      type: "object",
      additionalProperties: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["alert"],
          properties: {
            alert: name,
            params: {
              type: "object",
              default: {},
              fix: "the values of the scenario's placeholders, e.g. {caller: web, var: API_ADDR}",
            },
          },
        },
        fix: "the services users' requests fail at, each with the scenario's values for this system",
      },
      fix: "per incident scenario of chaos/incidents.yaml, where it alerts and its values, e.g. {far-wrong-addr: [{alert: web, params: {...}}]}",
    },
    userCheck: {
      type: "object",
      additionalProperties: false,
      required: ["from", "requests"],
      fix: "what users do: requests along the entry path, made from a container of the namespace",
      properties: {
        from: {
          type: "object",
          additionalProperties: false,
          required: ["apps", "container", "tool"],
          properties: {
            apps: {
              type: "array",
              items: name,
              minItems: 1,
              fix: "app labels of the pods to request from, in order",
            },
            container: { type: "string", minLength: 1, fix: "the container of those pods that has the tool" },
            tool: { enum: ["wget", "curl"], fix: "wget (busybox) or curl" },
          },
        },
        requests: { type: "array", items: userRequest, minItems: 1 },
        samples: { type: "integer", minimum: 1, default: 3 },
        timeoutSeconds: { type: "number", minimum: 1, default: 10 },
        margin: {
          type: "object",
          additionalProperties: false,
          properties: {
            factor: { type: "number", minimum: 1, default: 2 },
            plusMs: { type: "number", minimum: 0, default: 300 },
          },
          default: {},
        },
      },
    },
    pingTarget: {
      type: "object",
      additionalProperties: false,
      required: ["apps"],
      properties: {
        apps: {
          type: "array",
          items: name,
          minItems: 1,
          fix: "app labels whose pods the network checks ping, e.g. [web, api]",
        },
      },
    },
  },
};

export interface EnvFile {
  name: string;
  defaultNamespace: string;
  manifests: string;
  sourceConfig: string;
  topology: string;
  readyTimeoutSeconds: number;
  faultTargets: Record<string, FaultTarget[]>;
  /** The incident tier (docs/incident-tier.md): per scenario, the alerting service and the scenario's values. */
  incidentTargets?: Record<string, { alert: string; params: Record<string, unknown> }[]>;
  userCheck?: UserCheck;
  pingTarget: { apps: string[] };
}

export type FaultTarget = string | { service: string; params: Record<string, unknown> };

/** Requests along the system's entry path, as users make them (docs/expert-tier.md). */
export interface UserCheck {
  from: { apps: string[]; container: string; tool: "wget" | "curl" };
  requests: { name: string; url: string; method: "GET" | "POST"; data?: string; contentType?: string }[];
  samples: number;
  timeoutSeconds: number;
  margin: { factor: number; plusMs: number };
}
