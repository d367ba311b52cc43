// What a run is configured with, read off the one declaration of its options (options.ts):
// RunConfig is the type computed from that table, identity() and freeOptions() are what run.json
// records of it, and every default is applied here, once (withDefaults): nothing downstream falls
// back on a default of its own.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isEnvPath, loadEnv } from "../envs/env.js";
import { usageError } from "../errors.js";
import { packageRoot } from "../util/paths.js";
import { RUN_OPTIONS, type RunOption } from "./options.js";

type Options = typeof RUN_OPTIONS;
export type RunKey = keyof Options;

/** What an option's value is: what its parser returns, else its default's type, else the text given. */
type ValueOf<O> = O extends { parse: (v: string) => infer T }
  ? T
  : O extends { default: infer D }
    ? D extends boolean
      ? boolean
      : D extends string
        ? string
        : D
    : string;
/** Options that always have a value once parsed: a default, or required. */
type Given = {
  [K in RunKey]: Options[K] extends { default: unknown } | { required: string } ? K : never;
}[RunKey];

/** The options as parsed: each typed by its declaration, optional where it may be absent. */
export type RunFlags = { [K in Given]: ValueOf<Options[K]> } & {
  [K in Exclude<RunKey, Given>]?: ValueOf<Options[K]>;
};

/** The run's configuration: the options as parsed, with the namespace the env gives when none was. */
export type RunConfig = Omit<RunFlags, "namespace"> & { namespace: string };

/**
 * The options with each default where none was given (commander gives the defaults it prints in
 * --help already; a config made without it, in a test, gets them here). A required option that is
 * missing is a usage error.
 */
export function withDefaults(given: Partial<Record<RunKey, unknown>>): RunFlags {
  const out: Partial<Record<RunKey, unknown>> = {};
  for (const key of Object.keys(RUN_OPTIONS) as RunKey[]) {
    const o: RunOption = RUN_OPTIONS[key];
    const v = given[key] ?? o.default;
    if (v === undefined && o.required) throw usageError(`${longFlag(o.flags)} is required`, o.required);
    out[key] = v;
  }
  // each value was parsed by its option's parser (or is its default): the shape RUN_OPTIONS declares
  return out as RunFlags;
}

const longFlag = (flags: string) => flags.split(/[ ,]/)[0];

/** Paths and names as a run records them: absolute, and the namespace the env gives. */
export function resolveConfig(f: RunFlags): RunConfig {
  // a folder is recorded by its absolute path; its namespace is the one its env.yaml names
  const env = isEnvPath(f.env) ? resolve(f.env) : f.env;
  return {
    ...f,
    env,
    namespace: f.namespace ?? (isEnvPath(env) ? loadEnv(env).defaultNamespace : env),
    experimentPath: resolveData(f.experimentPath),
    manifestPath: f.manifestPath === undefined ? undefined : resolve(f.manifestPath),
    // the shipped inventory when the user has none of their own here
    inventory: resolveData(f.inventory),
  };
}

/** A path as given if it exists here, else the package's own file of that name (experiments/, inventory.ini). */
export function resolveData(p: string): string {
  if (existsSync(p)) return resolve(p);
  const shipped = resolve(packageRoot(), p);
  return existsSync(shipped) ? shipped : resolve(p);
}

/** The options of one record kind as run.json writes them (an absent value as null). */
function recorded(c: RunConfig, kind: "identity" | "options"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(RUN_OPTIONS) as RunKey[]) {
    const o: RunOption = RUN_OPTIONS[key];
    if (o.record !== kind) continue;
    const v = c[key];
    out[key] = v === undefined ? null : o.recordAs ? (o.recordAs as (x: unknown) => unknown)(v) : v;
  }
  return out;
}

/** What must match for a run to be resumed, recorded as run.json's config. */
export const identity = (c: RunConfig) => recorded(c, "identity");

/** Options that do not change what a case measures: recorded in run.json, free to differ on a resume. */
export const freeOptions = (c: RunConfig) => recorded(c, "options");
