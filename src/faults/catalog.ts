// The failure catalog (chaos/catalog.yaml): id, category, how it is injected, which check decides.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { MicroRemedError } from "../errors.js";
import { packageRoot } from "../util/paths.js";
import { validateWith } from "../util/schema.js";
import { INCIDENTS_FILE, incidents, type Scenario } from "./incident.js";

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
  "demand",
] as const;
export type VerifierId = (typeof VERIFIER_IDS)[number];

/** The reference's seven, the expert tier's twenty (docs/expert-tier.md), or an incident scenario (docs/incident-tier.md). */
export type Tier = "reference" | "expert" | "incident";

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
  /** An incident scenario (chaos/incidents.yaml): its story, causes and hold. */
  incident?: Scenario;
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
  // the incident scenarios, as failures of their own tier (experiment files and targets take them alike)
  for (const s of incidents().values()) cached.set(s.id, asFailure(s));
  return cached;
}

/** A scenario as an entry of the catalog: the runner's plumbing (targets, params, tiers) takes it as a failure. */
function asFailure(s: Scenario): FailureType {
  return {
    id: s.id,
    category: s.category,
    title: s.title,
    kind: "incident",
    template: INCIDENTS_FILE,
    verifier: "rollout",
    description: s.description,
    tier: "incident",
    target: "Deployment",
    patchType: "strategic",
    params: s.params,
    ...(s.confirmSeconds ? { confirmSeconds: s.confirmSeconds } : {}),
    incident: s,
  };
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
