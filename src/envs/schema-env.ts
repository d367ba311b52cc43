// The JSON schema of an env's env.yaml (field meanings: the header of envs/simple-micro/env.yaml).
const name = { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" };
const file = (what: string) => ({
  type: "string",
  minLength: 1,
  fix: `the ${what} file, relative to env.yaml`,
});

export const FAILURE_IDS = [
  "cpu-stress",
  "memory-stress",
  "disk-io",
  "network-loss",
  "network-delay",
  "pod-fail",
  "pod-config-error",
];

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
        items: name,
        minItems: 1,
        fix: "the Deployments (by name) a case of this failure may target",
      },
      fix: "per failure id, the Deployments a case may target, e.g. {pod-fail: [web]}",
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
  faultTargets: Record<string, string[]>;
  pingTarget: { apps: string[] };
}
