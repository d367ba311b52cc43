// The failure catalog (chaos/catalog.yaml): id, category, how it is injected, which check decides.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { MicroRemedError } from "../errors.js";
import { packageRoot } from "../util/paths.js";
import { validateWith } from "../util/schema.js";

/**
 * The checks a failure can be decided by: the reference's six, and the expert tier's symptoms
 * (src/verify: rollout, endpoints; calls, throttle and store for the faults that leave their
 * target rolled out and Ready).
 */
export const VERIFIER_IDS = [
  "cpu",
  "memory",
  "io",
  "network",
  "pod",
  "config",
  "rollout",
  "endpoints",
  "calls",
  "throttle",
  "store",
] as const;
export type VerifierId = (typeof VERIFIER_IDS)[number];

/** The reference's seven, or the expert tier's twenty (docs/expert-tier.md). */
export type Tier = "reference" | "expert";

export interface FailureType {
  id: string;
  category: string;
  title: string;
  /** A Chaos Mesh kind, `patch` (a patch of the target), `delete` (the target deleted) or `object` (an object created in the namespace). */
  kind: string;
  template: string;
  /** The fault's own check: the reference's for the seven, the symptom for the expert types. */
  verifier: VerifierId;
  description: string;
  tier: Tier;
  /** What a patch or a deletion acts on: the Deployment (default) or the Service named after the target. */
  target: "Deployment" | "Service";
  /** How a patch is applied (default: strategic merge). */
  patchType: "strategic" | "json" | "merge";
  /** Default values of the template's placeholders (a target's params in env.yaml override them). */
  params: Record<string, unknown>;
  /** Cluster seconds the fault may take to show, when more than the run's injection timeout. */
  confirmSeconds?: number;
}

const SCHEMA = {
  type: "object",
  required: ["failures"],
  properties: {
    failures: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["category", "title", "kind", "template", "verifier"],
        properties: {
          category: { type: "string" },
          title: { type: "string" },
          kind: { type: "string" },
          template: { type: "string" },
          verifier: { enum: [...VERIFIER_IDS] },
          description: { type: "string", default: "" },
          tier: { enum: ["reference", "expert"], default: "reference" },
          target: { enum: ["Deployment", "Service"], default: "Deployment" },
          patchType: { enum: ["strategic", "json", "merge"], default: "strategic" },
          params: { type: "object", default: {} },
          confirmSeconds: { type: "number", minimum: 1 },
        },
      },
    },
  },
};

let cached: Map<string, FailureType> | undefined;

export function catalog(): Map<string, FailureType> {
  if (cached) return cached;
  const file = join(packageRoot(), "chaos", "catalog.yaml");
  const raw = validateWith<{ failures: Record<string, Omit<FailureType, "id">> }>(
    SCHEMA,
    parse(readFileSync(file, "utf8")),
    file,
    "E_CONFIG",
    "restore chaos/catalog.yaml",
  );
  cached = new Map(Object.entries(raw.failures).map(([id, f]) => [id, { id, ...f }]));
  return cached;
}

/**
 * Add a failure of the user's (a template named in an experiment file) for this process; returns
 * its id, suffixed when another failure already holds the name.
 */
export function registerFailure(spec: FailureType): string {
  const all = catalog();
  const same = (f: FailureType) => f.template === spec.template && f.verifier === spec.verifier;
  let id = spec.id;
  for (let n = 2; all.has(id) && !same(all.get(id) as FailureType); n++) id = `${spec.id}-${n}`;
  all.set(id, { ...spec, id });
  return id;
}

export function failure(id: string): FailureType {
  const f = catalog().get(id);
  if (!f)
    throw new MicroRemedError(
      "E_UNKNOWN_FAILURE",
      `unknown failure type "${id}"`,
      `use one of: ${[...catalog().keys()].join(", ")}`,
    );
  return f;
}
