// A Harbor task's case (case.json, beside the entrypoint in the image, out of the agent's reach):
// what the container injects at start and what its verifier scores, written by the export and
// read by `microremed task start` and `microremed task verify`.
import { readFileSync } from "node:fs";
import type { ReportLevel } from "../diagnosis/levels.js";
import { MicroRemedError } from "../errors.js";
import type { PlannedFault } from "../runner/experiments.js";
import { validateWith } from "../util/schema.js";

export interface HarborCase {
  /** The task's folder name, e.g. simple-micro-easy-001-cpu-stress. */
  name: string;
  env: string;
  namespace: string;
  tier: string;
  report: ReportLevel;
  seed: number;
  /** The embedded cluster's clock while the harness deploys, injects and scores. */
  speed: number;
  /** The clock while the agent acts (1: a chaos duration means what it means on k3s). */
  methodSpeed: number;
  /** Cluster seconds after the agent before the checks (the reference's settle). */
  settle: number;
  /** Cluster seconds every check must keep passing after the settle. */
  hold: number;
  /** Cluster seconds for the fault to show after the injection. */
  injectionTimeout: number;
  faults: PlannedFault[];
}

const num = { type: "number", minimum: 0 };
const SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: [
    "name",
    "env",
    "namespace",
    "tier",
    "report",
    "seed",
    "speed",
    "methodSpeed",
    "settle",
    "hold",
    "injectionTimeout",
    "faults",
  ],
  properties: {
    name: { type: "string", pattern: "^[a-z0-9][a-z0-9-]*$" },
    env: { type: "string", minLength: 1 },
    namespace: { type: "string", minLength: 1 },
    tier: { type: "string" },
    report: { enum: ["full", "service", "symptom"] },
    seed: { type: "integer", minimum: 0 },
    speed: { type: "number", exclusiveMinimum: 0 },
    methodSpeed: { type: "number", exclusiveMinimum: 0 },
    settle: num,
    hold: num,
    injectionTimeout: { type: "number", exclusiveMinimum: 0 },
    faults: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["failure", "target"],
        additionalProperties: false,
        properties: {
          failure: { type: "string" },
          target: { type: "string" },
          params: { type: "object" },
          vars: { type: "object" },
        },
      },
    },
  },
};

export function readCase(file: string): HarborCase {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new MicroRemedError(
      "E_CONFIG",
      `cannot read the task's case ${file}: ${(e as Error).message}`,
      "pass the case.json a Harbor task folder's environment/ holds (microremed export harbor writes it)",
    );
  }
  return validateWith<HarborCase>(
    SCHEMA,
    withTargets(raw),
    file,
    "E_CONFIG",
    "export the task again with microremed export harbor",
  );
}

/** A case exported before faults named their service `target` (they said `service`), as today's. */
function withTargets(raw: unknown): unknown {
  const c = raw as { faults?: unknown };
  if (!c || typeof c !== "object" || !Array.isArray(c.faults)) return raw;
  return {
    ...c,
    faults: c.faults.map((f: Record<string, unknown>) => {
      if (!f || typeof f !== "object" || "target" in f || !("service" in f)) return f;
      const { service, ...rest } = f;
      return { ...rest, target: service };
    }),
  };
}
