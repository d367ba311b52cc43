// The incident tier's scenarios (chaos/incidents.yaml, docs/incident-tier.md): each a short story
// over several objects, written as ordered steps (steps.ts runs them), with its causes (kind and
// name, each with its own check), its family, the alert's category and how long a fix must hold.
// A scenario's values per system (which services, which variable, which port) come from the
// system's env.yaml (`incidentTargets`), filled into its placeholders ([name]) as the expert
// tier's templates are. Each scenario is also an entry of the failure catalog (catalog.ts) with
// `tier: incident`, so experiment files, targets and the runner take it as they take a failure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { MicroRemedError } from "../errors.js";
import type { KObj } from "../kube/objects.js";
import { packageRoot } from "../util/paths.js";
import { validateWith } from "../util/schema.js";

/** What kind of diagnosis a scenario asks for (the six families). */
export const FAMILIES = ["sticks", "template", "far", "load", "multi", "herring"] as const;
export type Family = (typeof FAMILIES)[number];

/** How a patch step is applied. */
export type PatchType = "strategic" | "merge" | "json";

/** An object of the namespace a step names. */
export interface ObjectRef {
  kind: string;
  name: string;
}

/**
 * One step of a scenario's story:
 *   create  objects made in the namespace (the harness's record deletes them at restore)
 *   patch   a patch of one object, as `kubectl patch` makes it (its last-applied stays)
 *   apply   a deploy of a changed manifest, as `kubectl apply` makes it: the object's applied
 *           configuration with the change merged in (lists of named items merged by name), its
 *           last-applied record updated, so the change is part of the object's history
 *   delete  one object deleted
 *   wait    cluster seconds pass, so what follows is newer than what came before
 *   ready   until every workload of the namespace is Ready again
 *   delete-pod  one pod of a service deleted (its controller replaces it); `count` deletes that
 *           many of its Running pods at once (a node drained, a hand restart of some of them)
 *   exec    a command run in a pod of a service (runtime state: the service's pods are replaced at restore)
 * `benign` marks a step that is not a cause (a red herring): documentation, and the tests' check
 * that no cause is benign.
 */
export type Step = { benign?: boolean; note?: string } & (
  | { do: "create"; objects: KObj[] }
  | { do: "patch"; kind: string; name: string; patch: unknown; type?: PatchType }
  | { do: "apply"; kind: string; name: string; patch: Record<string, unknown> }
  | { do: "delete"; kind: string; name: string }
  | { do: "wait"; seconds: number }
  | { do: "ready" }
  | { do: "delete-pod"; app: string; count?: number }
  | { do: "exec"; app: string; container?: string; command: string[] }
);

/** A cause of the incident: the object to find and fix, and the check that says it is fixed. */
export interface Cause extends ObjectRef {
  /** The cause's own check (src/verify), on a service, with the values it reads. */
  check?: { verifier: string; service: string; vars?: Record<string, unknown> };
  /**
   * Objects that carry the same cause, so changing or naming one acts on it: a CronJob's source
   * ConfigMap, whose fix stops the job re-applying the bad value as surely as suspending it.
   */
  via?: ObjectRef[];
}

export interface Scenario {
  id: string;
  family: Family;
  /** The symptom's category at the reference's grain (the full report's), never the causes'. */
  category: string;
  title: string;
  description: string;
  /** Cluster seconds every check must keep passing after the fix (≥ 3 periods of a reconciler). */
  hold: number;
  /** Cluster seconds the alert may take to fire after the steps. */
  confirmSeconds?: number;
  causes: Cause[];
  /**
   * Checks held with the causes' that name no cause: what the story's users do, which a fix must
   * leave as it is (a surge's users still served, not turned away).
   */
  checks: NonNullable<Cause["check"]>[];
  steps: Step[];
  /** Postmortems and the peers' problems the story is drawn from. */
  sources: string[];
  /** Default values of the placeholders (a system's params override them). */
  params: Record<string, unknown>;
}

const ref = { kind: { type: "string", minLength: 1 }, name: { type: "string", minLength: 1 } };
const common = { benign: { type: "boolean" }, note: { type: "string" } };
const step = (kind: string, props: Record<string, object>, required: string[]) => ({
  type: "object",
  additionalProperties: false,
  required: ["do", ...required],
  properties: { do: { const: kind }, ...common, ...props },
});
const STEP = {
  oneOf: (
    [
      ["create", { objects: { type: "array", minItems: 1, items: { type: "object" } } }, ["objects"]],
      [
        "patch",
        { ...ref, patch: {}, type: { enum: ["strategic", "merge", "json"] } },
        ["kind", "name", "patch"],
      ],
      ["apply", { ...ref, patch: { type: "object" } }, ["kind", "name", "patch"]],
      ["delete", ref, ["kind", "name"]],
      ["wait", { seconds: { type: "number", minimum: 1 } }, ["seconds"]],
      ["ready", {}, []],
      ["delete-pod", { app: { type: "string" }, count: { type: "integer", minimum: 1 } }, ["app"]],
      [
        "exec",
        {
          app: { type: "string" },
          container: { type: "string" },
          command: { type: "array", minItems: 1, items: { type: "string" } },
        },
        ["app", "command"],
      ],
    ] as const
  ).map(([kind, props, required]) => step(kind, props, [...required])),
};

const CHECK = {
  type: "object",
  additionalProperties: false,
  required: ["verifier", "service"],
  properties: {
    verifier: { type: "string" },
    service: { type: "string" },
    vars: { type: "object" },
  },
};

const SCHEMA = {
  type: "object",
  required: ["incidents"],
  properties: {
    incidents: {
      type: "object",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        required: ["family", "category", "title", "hold", "causes", "steps"],
        properties: {
          family: { enum: [...FAMILIES] },
          category: { type: "string" },
          title: { type: "string" },
          description: { type: "string", default: "" },
          hold: { type: "number", minimum: 1 },
          confirmSeconds: { type: "number", minimum: 1 },
          params: { type: "object", default: {} },
          sources: { type: "array", items: { type: "string" }, default: [] },
          causes: {
            type: "array",
            minItems: 1,
            items: {
              type: "object",
              additionalProperties: false,
              required: ["kind", "name"],
              properties: {
                ...ref,
                check: CHECK,
                via: {
                  type: "array",
                  items: {
                    type: "object",
                    additionalProperties: false,
                    required: ["kind", "name"],
                    properties: ref,
                  },
                },
              },
            },
          },
          checks: { type: "array", default: [], items: CHECK },
          steps: { type: "array", minItems: 1, items: STEP },
        },
      },
    },
  },
};

/** The file the scenarios are read from. */
export const INCIDENTS_FILE = join("chaos", "incidents.yaml");

let cached: Map<string, Scenario> | undefined;

/** Every scenario of chaos/incidents.yaml, checked. */
export function incidents(): Map<string, Scenario> {
  if (cached) return cached;
  const file = join(packageRoot(), INCIDENTS_FILE);
  const raw = validateWith<{ incidents: Record<string, Omit<Scenario, "id">> }>(
    SCHEMA,
    parse(readFileSync(file, "utf8")),
    file,
    "E_CONFIG",
    "restore chaos/incidents.yaml",
  );
  cached = new Map(Object.entries(raw.incidents).map(([id, s]) => [id, { id, ...s }]));
  return cached;
}

export function incident(id: string): Scenario {
  const s = incidents().get(id);
  if (!s)
    throw new MicroRemedError(
      "E_UNKNOWN_FAILURE",
      `unknown incident scenario "${id}"`,
      `use one of: ${[...incidents().keys()].join(", ")}`,
    );
  return s;
}

const PLACEHOLDER = /\[([a-z_]+)\]/g;

/** The placeholders a scenario's steps and causes name. */
export function scenarioPlaceholders(s: Scenario): string[] {
  const text = JSON.stringify([s.steps, s.causes, s.checks]);
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/**
 * A value with its placeholders filled: a string that is one placeholder takes the value as it is
 * (a port stays a number), a placeholder inside a longer string is replaced as text; an object's
 * keys are filled too, as text (a ConfigMap's `[caller].env`).
 */
export function fillValue<T>(v: T, vars: Record<string, unknown>): T {
  if (typeof v === "string") {
    const whole = /^\[([a-z_]+)\]$/.exec(v);
    if (whole && whole[1] in vars) return vars[whole[1]] as T;
    return v.replace(PLACEHOLDER, (m, k: string) => (k in vars ? String(vars[k]) : m)) as T;
  }
  if (Array.isArray(v)) return v.map((x) => fillValue(x, vars)) as T;
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [String(fillValue(k, vars)), fillValue(x, vars)]),
    ) as T;
  return v;
}

/** The scenario for a system: its placeholders filled with the defaults and the system's params. */
export function renderScenario(s: Scenario, vars: Record<string, unknown>): Scenario {
  const all = { ...s.params, ...vars };
  return {
    ...s,
    steps: fillValue(s.steps, all),
    causes: fillValue(s.causes, all),
    checks: fillValue(s.checks, all),
  };
}
