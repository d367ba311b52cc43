// A failure of the user's own: a Chaos Mesh template file (any kind the embedded cluster
// simulates) named in an experiment file with the check that decides recovery. The template says
// what the fault does; where it lands is the harness's: the selector and namespace are set for the
// case's target when it is injected (a template that carries its own is refused).
import { basename, extname, resolve } from "node:path";
import { checkYaml, lineOf, readYaml } from "../envs/yaml-schema.js";
import { MicroRemedError } from "../errors.js";
import { type FailureType, registerFailure, type VerifierId } from "./catalog.js";

/** The symptom checks a user failure may name, and the verifier each one runs. */
export const CHECKS: Record<string, { verifier: VerifierId; category: string; title: string }> = {
  cpu: { verifier: "cpu", category: "Resource-Level", title: "CPU Saturation" },
  memory: { verifier: "memory", category: "Resource-Level", title: "Memory Saturation" },
  io: { verifier: "io", category: "Resource-Level", title: "IO Saturation" },
  "network-delay": { verifier: "network", category: "Network-Level", title: "Network Delay" },
  "network-loss": { verifier: "network", category: "Network-Level", title: "Network Loss" },
  readiness: { verifier: "pod", category: "Application-Level", title: "Pod Failure" },
};

const str = { type: "string" };
const strings = { type: "array", items: str };
const modeFields = {
  mode: { enum: ["one", "all", "fixed", "fixed-percent", "random-max-percent"] },
  value: { type: "string", fix: 'the count or percentage for the fixed modes, e.g. "1"' },
  duration: { type: "string", pattern: "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$", fix: 'e.g. "120s"' },
  containerNames: strings,
};
const spec = (required: string[], properties: Record<string, object>) => ({
  type: "object",
  required,
  additionalProperties: false,
  properties: { ...modeFields, ...properties },
});
const kindIs = (kind: string, specSchema: object) => ({
  if: { properties: { kind: { const: kind } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON schema's if/then keyword, never awaited
  then: { properties: { spec: specSchema } },
});

/** Chaos Mesh 2.x spec fields the embedded cluster acts on (src/sim/chaos), per kind. */
export const TEMPLATE_SCHEMA = {
  type: "object",
  required: ["apiVersion", "kind", "spec"],
  additionalProperties: false,
  properties: {
    apiVersion: { const: "chaos-mesh.org/v1alpha1", fix: "apiVersion: chaos-mesh.org/v1alpha1" },
    kind: { enum: ["StressChaos", "NetworkChaos", "PodChaos", "IOChaos"] },
    metadata: {
      type: "object",
      additionalProperties: false,
      properties: {
        name: { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", fix: "a DNS-1123 name" },
        namespace: str,
        labels: { type: "object" },
        annotations: { type: "object" },
      },
    },
    spec: { type: "object" },
  },
  allOf: [
    kindIs("StressChaos", {
      ...spec([], { stressors: { type: "object" }, stressngStressors: str }),
      anyOf: [{ required: ["stressors"] }, { required: ["stressngStressors"] }],
    }),
    kindIs(
      "NetworkChaos",
      spec(["action"], {
        action: { enum: ["delay", "loss", "duplicate", "corrupt", "partition", "bandwidth"] },
        delay: { type: "object" },
        loss: { type: "object" },
        duplicate: { type: "object" },
        corrupt: { type: "object" },
        bandwidth: { type: "object" },
      }),
    ),
    kindIs(
      "IOChaos",
      spec(["action", "volumePath"], {
        action: { enum: ["latency", "fault", "attrOverride", "mistake"] },
        volumePath: { type: "string", fix: "the mount path of a volume of the target's pods" },
        path: str,
        delay: str,
        percent: { type: "integer", minimum: 0, maximum: 100 },
        errno: { type: "integer" },
        methods: strings,
        attr: { type: "object" },
        mistake: { type: "object" },
      }),
    ),
    kindIs(
      "PodChaos",
      spec(["action"], {
        action: { enum: ["pod-failure", "pod-kill", "container-kill"] },
        gracePeriod: { type: "integer", minimum: 0 },
      }),
    ),
  ],
};

/** Fields that would send the fault somewhere else than the case's target. */
const HARNESS_FIELDS = ["selector", "target", "externalTargets"];

/**
 * Check a user's template and register it as a failure; returns its id (`template:<file name>`).
 * `file` is resolved against `baseDir` (the experiment file's folder).
 */
export function loadUserTemplate(file: string, check: string, baseDir: string, where: string): string {
  const path = resolve(baseDir, file);
  const c = CHECKS[check];
  if (!c)
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${where}: unknown check "${check}" for template ${file}`,
      `use one of: ${Object.keys(CHECKS).join(", ")}`,
    );
  const y = readYaml(path, "E_EXPERIMENT_FILE", "chaos template");
  const doc = y.data as { kind?: string; spec?: Record<string, unknown> } | null;
  for (const f of HARNESS_FIELDS)
    if (doc?.spec && f in doc.spec)
      throw new MicroRemedError(
        "E_EXPERIMENT_FILE",
        `${path}:${lineOf(y, `/spec/${f}`)}: spec.${f}: a template does not choose where its fault lands`,
        `remove spec.${f}: the harness selects the case's target service in its namespace (the experiment's \`target:\`)`,
      );
  checkYaml(y, TEMPLATE_SCHEMA, "E_EXPERIMENT_FILE");
  const spec: FailureType = {
    id: `template:${basename(path, extname(path))}`,
    category: c.category,
    title: c.title,
    kind: String(doc?.kind),
    template: path,
    verifier: c.verifier,
    description: `the user's ${doc?.kind} template ${path}, checked by ${check}`,
    tier: "reference",
    target: "Deployment",
    patchType: "strategic",
    params: {},
  };
  return registerFailure(spec);
}
