// Experiment files: the reference's text format (one failure id per line, # comments) and a YAML
// format (explicit targets, several faults in one case, template parameters, seed). Targets not
// given are drawn from the env's fault-target lists with the run's seed.
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse } from "yaml";
import { catalog, failure } from "../chaos/catalog.js";
import type { EnvSpec } from "../envs/env.js";
import { MicroRemedError } from "../errors.js";
import { Rng } from "../util/rng.js";
import { validateWith } from "../util/schema.js";

export interface FaultSpec {
  failure: string;
  target?: string;
  params?: Record<string, unknown>;
}

export interface ExperimentFile {
  name?: string;
  seed?: number;
  cases: { faults: FaultSpec[] }[];
}

export interface Fault {
  failure: string;
  service: string;
  params?: Record<string, unknown>;
}

export interface PlannedCase {
  index: number;
  faults: Fault[];
}

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
              failure: { type: "string" },
              target: { type: "string" },
              params: { type: "object" },
              faults: {
                type: "array",
                minItems: 1,
                items: {
                  type: "object",
                  required: ["failure"],
                  additionalProperties: false,
                  properties: {
                    failure: { type: "string" },
                    target: { type: "string" },
                    params: { type: "object" },
                  },
                },
              },
            },
          },
        ],
      },
    },
  },
};

const FIX_TEXT = "write one failure id per line (# starts a comment)";

export function parseExperimentText(text: string, file: string): ExperimentFile {
  const cases: ExperimentFile["cases"] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) return;
    if (!catalog().has(line))
      throw new MicroRemedError(
        "E_EXPERIMENT_FILE",
        `${file}:${i + 1}: unknown failure type "${line}"`,
        `${FIX_TEXT}; ids: ${[...catalog().keys()].join(", ")}`,
      );
    cases.push({ faults: [{ failure: line }] });
  });
  if (!cases.length) throw new MicroRemedError("E_EXPERIMENT_FILE", `${file} lists no cases`, FIX_TEXT);
  return { cases };
}

export function parseExperimentYaml(text: string, file: string): ExperimentFile {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (e) {
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${file} is not valid YAML: ${(e as Error).message.split("\n")[0]}`,
      "fix the YAML syntax",
    );
  }
  type RawCase =
    | string
    | { failure?: string; target?: string; params?: Record<string, unknown>; faults?: FaultSpec[] };
  const doc = validateWith<{ name?: string; seed?: number; cases: RawCase[] }>(
    SCHEMA,
    raw,
    file,
    "E_EXPERIMENT_FILE",
    "see experiments/example.yaml for the format",
  );
  const cases = doc.cases.map((c, i) => {
    const faults: FaultSpec[] =
      typeof c === "string"
        ? [{ failure: c }]
        : (c.faults ?? (c.failure ? [{ failure: c.failure, target: c.target, params: c.params }] : []));
    if (!faults.length)
      throw new MicroRemedError(
        "E_EXPERIMENT_FILE",
        `${file}: case ${i + 1} names no failure`,
        "give each case `failure:` or a `faults:` list",
      );
    for (const f of faults) {
      if (!catalog().has(f.failure))
        throw new MicroRemedError(
          "E_EXPERIMENT_FILE",
          `${file}: case ${i + 1}: unknown failure type "${f.failure}"`,
          `ids: ${[...catalog().keys()].join(", ")}`,
        );
    }
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

/**
 * The cases to run: the first `count` cases of the file (cycling when count is larger), each
 * fault's target drawn with the seed from the env's list for that failure, unless given.
 */
export function planCases(exp: ExperimentFile, env: EnvSpec, seed: number, count?: number): PlannedCase[] {
  const rng = new Rng(exp.seed ?? seed);
  const n = count ?? exp.cases.length;
  const out: PlannedCase[] = [];
  for (let i = 0; i < n; i++) {
    const c = exp.cases[i % exp.cases.length];
    const used = new Set<string>();
    const faults = c.faults.map((f) => {
      failure(f.failure);
      const pool = env.faultTargets[f.failure];
      if (!pool?.length)
        throw new MicroRemedError(
          "E_EXPERIMENT_FILE",
          `env ${env.name} has no targets for ${f.failure}`,
          `add faultTargets.${f.failure} to ${env.dir}/env.yaml`,
        );
      // draw for every fault, so a given target does not shift the later draws
      const candidates = pool.filter((s) => !used.has(s));
      const drawn = candidates.length ? rng.pick(candidates) : rng.pick(pool);
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
      used.add(service);
      return { failure: f.failure, service, params: f.params };
    });
    out.push({ index: i + 1, faults });
  }
  return out;
}
