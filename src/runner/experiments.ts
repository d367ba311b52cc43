// Experiment files: the reference's text format (one failure id per line, # comments) and a YAML
// format (explicit targets, several faults in one case, template parameters, seed). Targets not
// given are drawn from the env's fault-target lists with the run's seed.
import { readFileSync } from "node:fs";
import { dirname, extname } from "node:path";
import type { EnvSpec } from "../envs/env.js";
import { checkYaml, lineOf, parseYaml, type YamlFile } from "../envs/yaml-schema.js";
import { MicroRemedError } from "../errors.js";
import { catalog, type FailureType, failure } from "../faults/catalog.js";
import { LIVE_PLACEHOLDERS, placeholdersOf } from "../faults/inject.js";
import { PARAMS_SCHEMAS, retargetingField } from "../faults/params.js";
import { CHECKS, loadUserTemplate } from "../faults/user-template.js";
import { Rng } from "../util/rng.js";

export interface WrittenFault {
  failure: string;
  target?: string;
  params?: Record<string, unknown>;
}

export interface ExperimentFile {
  name?: string;
  seed?: number;
  cases: { faults: WrittenFault[] }[];
}

/** A fault as planned: the failure's id and its target (context.ts's Fault adds the failure's definition). */
export interface PlannedFault {
  failure: string;
  service: string;
  params?: Record<string, unknown>;
  /** The values of the failure template's placeholders for this target (the catalog's defaults, the env's params). */
  vars?: Record<string, unknown>;
}

export interface PlannedCase {
  index: number;
  faults: PlannedFault[];
}

// a fault names a failure of the catalog, or a chaos template file of the user's with its check
const FAULT_PROPS = {
  failure: { type: "string", fix: "a failure id of chaos/catalog.yaml, e.g. cpu-stress" },
  template: { type: "string", fix: "a Chaos Mesh template file, relative to this file" },
  check: { enum: Object.keys(CHECKS) },
  target: { type: "string" },
  params: { type: "object" },
};
const ONE_FAILURE = {
  oneOf: [{ required: ["failure"] }, { required: ["template", "check"] }],
};

const SCHEMA = {
  type: "object",
  required: ["cases"],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    seed: { type: "integer" },
    cases: {
      type: "array",
      minItems: 1,
      items: {
        anyOf: [
          { type: "string" },
          {
            type: "object",
            additionalProperties: false,
            properties: {
              ...FAULT_PROPS,
              faults: {
                type: "array",
                minItems: 1,
                items: {
                  type: "object",
                  additionalProperties: false,
                  properties: FAULT_PROPS,
                  ...ONE_FAILURE,
                },
              },
            },
          },
        ],
      },
    },
  },
};

const FIX_TEXT =
  "write one failure id per line, or two joined by + for two faults at once (# starts a comment)";

export function parseExperimentText(text: string, file: string): ExperimentFile {
  const cases: ExperimentFile["cases"] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) return;
    // "a + b": two faults at once, each on its own target
    const ids = line.split("+").map((x) => x.trim());
    const unknown = ids.find((id) => !catalog().has(id));
    if (unknown !== undefined)
      throw new MicroRemedError(
        "E_EXPERIMENT_FILE",
        `${file}:${i + 1}: unknown failure type "${unknown}"`,
        `${FIX_TEXT}; ids: ${[...catalog().keys()].join(", ")}`,
      );
    cases.push({ faults: ids.map((failure) => ({ failure })) });
  });
  if (!cases.length) throw new MicroRemedError("E_EXPERIMENT_FILE", `${file} lists no cases`, FIX_TEXT);
  return { cases };
}

type RawFault = WrittenFault & { template?: string; check?: string };
type RawCase = string | (RawFault & { faults?: RawFault[] });

export function parseExperimentYaml(text: string, file: string): ExperimentFile {
  let y: YamlFile;
  try {
    y = parseYaml(text, file, "E_EXPERIMENT_FILE");
  } catch (e) {
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${file} is not valid YAML: ${(e as Error).message}`,
      "fix the YAML syntax",
    );
  }
  const doc = checkYaml<{ name?: string; seed?: number; cases: RawCase[] }>(y, SCHEMA, "E_EXPERIMENT_FILE");
  const cases = doc.cases.map((c, i) => {
    const raw: { f: RawFault; at: string }[] =
      typeof c === "string"
        ? [{ f: { failure: c }, at: `/cases/${i}` }]
        : c.faults
          ? c.faults.map((f, j) => ({ f, at: `/cases/${i}/faults/${j}` }))
          : c.failure || c.template
            ? [{ f: c, at: `/cases/${i}` }]
            : [];
    if (!raw.length)
      throw new MicroRemedError(
        "E_EXPERIMENT_FILE",
        `${file}:${lineOf(y, `/cases/${i}`)}: case ${i + 1} names no failure`,
        "give each case `failure:` (or `template:` and `check:`) or a `faults:` list",
      );
    const faults = raw.map(({ f, at }) => toFault(y, f, at, i));
    const services = faults.filter((f) => f.target).map((f) => f.target);
    if (new Set(services).size !== services.length)
      throw new MicroRemedError(
        "E_EXPERIMENT_FILE",
        `${file}: case ${i + 1} puts two faults on one service`,
        "give each fault of a case its own target",
      );
    return { faults };
  });
  return { name: doc.name, seed: doc.seed, cases };
}

/** One fault of a YAML case: its failure (registering a user template) and checked params. */
function toFault(y: YamlFile, f: RawFault, at: string, i: number): WrittenFault {
  const where = `${y.file}:${lineOf(y, at)}`;
  const id = f.template
    ? loadUserTemplate(f.template, String(f.check), dirname(y.file), where)
    : String(f.failure);
  if (!catalog().has(id))
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${where}: case ${i + 1}: unknown failure type "${id}"`,
      `ids: ${[...catalog().keys()].join(", ")}`,
    );
  if (f.params !== undefined) checkParams(y, failure(id), f.params, `${at}/params`);
  return { failure: id, target: f.target, params: f.params };
}

/** params tune a fault and never retarget it: the schema of the failure's kind. */
function checkParams(y: YamlFile, spec: FailureType, params: Record<string, unknown>, at: string) {
  const field = retargetingField(params);
  if (field)
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${y.file}:${lineOf(y, `${at}/${field.replaceAll(".", "/")}`)}: params.${field} would retarget the ${spec.id} fault`,
      "remove it: params tune a fault (latency, jitter, loss, correlation, workers, load, size, percent, duration, ...); the harness targets the case's `target:` service in its namespace",
    );
  const schema = PARAMS_SCHEMAS[spec.kind];
  if (!schema)
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${y.file}:${lineOf(y, at)}: ${spec.id} takes no params`,
      "remove params from this fault",
    );
  checkYaml(y, schema, "E_EXPERIMENT_FILE", { data: params, at });
}

export function loadExperimentFile(file: string): ExperimentFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `cannot read experiment file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      "pass --experiment-path with an existing file, e.g. experiments/easy.txt",
    );
  }
  return [".yaml", ".yml"].includes(extname(file))
    ? parseExperimentYaml(text, file)
    : parseExperimentText(text, file);
}

const isUserFailure = (id: string) => id.startsWith("template:");

/**
 * The placeholder values of an expert failure's template for a target: the catalog's defaults,
 * then the env's params for the target. Every placeholder the template names must have one (or
 * be one the injector reads from the live target), checked before any cluster is touched.
 */
export function targetVars(
  env: EnvSpec,
  failureId: string,
  service: string,
): Record<string, unknown> | undefined {
  const spec = failure(failureId);
  if (spec.tier === "reference") return undefined;
  // an incident's [alert] is its target, the service whose users' requests fail
  const vars = {
    ...spec.params,
    ...(spec.tier === "incident" ? { alert: service } : {}),
    ...env.targetParams[failureId]?.[service],
  };
  const missing = placeholdersOf(spec).filter((p) => !(p in vars) && !LIVE_PLACEHOLDERS.includes(p));
  if (missing.length)
    throw new MicroRemedError(
      "E_CONFIG",
      `faultTargets.${failureId} of ${env.name}: ${service} gives no value for ${missing.map((m) => `[${m}]`).join(", ")} of ${spec.template}`,
      `write the target as {service: ${service}, params: {${missing.map((m) => `${m}: ...`).join(", ")}}} in ${env.dir}/env.yaml`,
    );
  return vars;
}
const allTargets = (env: EnvSpec) => [...new Set(Object.values(env.faultTargets).flat())].sort();

/**
 * The cases to run: the first `count` cases of the file (cycling when count is larger), each
 * fault's target drawn with the seed from the env's list for that failure, unless given.
 */
/**
 * The expert types and incident scenarios of the file that the system lists no targets for: they
 * do not apply to it (cache-auth on a system without a cache, a scenario whose parts it lacks),
 * and their cases are left out of its runs.
 */
export function inapplicable(exp: ExperimentFile, env: EnvSpec): string[] {
  const ids = exp.cases.flatMap((c) => c.faults.map((f) => f.failure));
  return [...new Set(ids)].filter((id) => failure(id).tier !== "reference" && !env.faultTargets[id]?.length);
}

/**
 * Whether an expert fault on `service`, beside the case's other targets, still leaves a pod for
 * the user-facing check to request from (a case whose faults take every such pod down cannot be
 * confirmed). The reference's failures draw as the reference does.
 */
function leavesRequester(env: EnvSpec, id: string, used: Set<string>, service: string): boolean {
  // an incident's target is the alerting service; its causes are the scenario's, never requested from
  if (failure(id).tier !== "expert" || !env.userCheck) return true;
  return env.userCheck.from.apps.some((a) => a !== service && !used.has(a));
}

export function planCases(exp: ExperimentFile, env: EnvSpec, seed: number, count?: number): PlannedCase[] {
  const rng = new Rng(exp.seed ?? seed);
  const skip = new Set(inapplicable(exp, env));
  const cases = exp.cases.filter((c) => !c.faults.some((f) => skip.has(f.failure)));
  if (!cases.length)
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `no case of the experiment file applies to ${env.name}: it lists no targets for ${[...skip].join(", ")}`,
      `pick a system where they apply, or add targets for them to ${env.dir}/env.yaml`,
    );
  const n = count ?? cases.length;
  const out: PlannedCase[] = [];
  for (let i = 0; i < n; i++) {
    const c = cases[i % cases.length];
    const used = new Set<string>();
    const faults = c.faults.map((f) => {
      failure(f.failure);
      // a user's template may hit any fault target of the env
      const pool = env.faultTargets[f.failure] ?? (isUserFailure(f.failure) ? allTargets(env) : undefined);
      if (!pool?.length)
        throw new MicroRemedError(
          "E_EXPERIMENT_FILE",
          `env ${env.name} has no targets for ${f.failure}`,
          `add faultTargets.${f.failure} to ${env.dir}/env.yaml`,
        );
      // draw for every fault, so a given target does not shift the later draws
      // a target of its own first, then one that leaves the check a pod to request from
      const leaving = pool.filter((s) => leavesRequester(env, f.failure, used, s));
      const prefer = [leaving.filter((s) => !used.has(s)), leaving, pool.filter((s) => !used.has(s)), pool];
      const drawn = rng.pick(prefer.find((p) => p.length) ?? pool);
      const service = f.target ?? drawn;
      if (
        f.target &&
        !env.manifests.some(
          (m) => m.metadata?.name === f.target && (m.kind === "Deployment" || m.kind === "StatefulSet"),
        )
      )
        throw new MicroRemedError(
          "E_EXPERIMENT_FILE",
          `case ${i + 1}: target "${f.target}" is not a workload of ${env.name}`,
          `use one of: ${pool.join(", ")}`,
        );
      // a fault Chaos Mesh could not inject there (disk-io on a pod without the volume) would be
      // scored against the model: the env's list says where each failure can take effect
      if (f.target && !isUserFailure(f.failure) && !pool.includes(f.target))
        throw new MicroRemedError(
          "E_EXPERIMENT_FILE",
          `case ${i + 1}: ${f.failure} cannot take effect on "${f.target}" in ${env.name}; its targets are ${pool.join(", ")}`,
          `pick one of them, or add "${f.target}" to faultTargets.${f.failure} in ${env.dir}/env.yaml if the fault takes effect there`,
        );
      used.add(service);
      const vars = targetVars(env, f.failure, service);
      return { failure: f.failure, service, params: f.params, ...(vars ? { vars } : {}) };
    });
    out.push({ index: i + 1, faults });
  }
  return out;
}
