// A microservice system as data: a folder (the package's envs/<name>, or a user's) with env.yaml,
// the manifests, the source config and the topology the embedded cluster models, each checked
// against its schema (schema-env.ts, schema-topology.ts) with errors that name file, line and fix.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { MicroRemedError } from "../errors.js";
import type { KObj } from "../kube/objects.js";
import { packageRoot } from "../util/paths.js";
import { checkConsistent } from "./consistency.js";
import { ENV_SCHEMA, type EnvFile } from "./schema-env.js";
import { TOPOLOGY_SCHEMA, type TopologyDoc } from "./schema-topology.js";
import type { EnvSpec } from "./spec.js";
import { checkYaml, readYaml } from "./yaml-schema.js";

export type { EnvSpec };

export function envsDir(): string {
  return join(packageRoot(), "envs");
}

export function listEnvs(): string[] {
  return readdirSync(envsDir())
    .filter((d) => existsSync(join(envsDir(), d, "env.yaml")))
    .sort();
}

/** A folder (a path, or a name that is not built in but is a folder here) rather than a built-in name. */
export function isEnvPath(nameOrPath: string): boolean {
  if (/[/\\]/.test(nameOrPath) || nameOrPath.startsWith(".")) return true;
  return !existsSync(join(envsDir(), nameOrPath, "env.yaml")) && existsSync(join(nameOrPath, "env.yaml"));
}

/** The folder of an env: envs/<name> of the package, or the user's folder (absolute). */
export function envDir(nameOrPath: string): string {
  return isEnvPath(nameOrPath) ? resolve(nameOrPath) : join(envsDir(), nameOrPath);
}

export function readManifests(file: string): KObj[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new MicroRemedError(
      "E_CONFIG",
      `cannot read manifest file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      "pass --manifest-path with an existing YAML file of Deployments (default: the env's source-config.yaml)",
    );
  }
  const docs = parseAllDocuments(text);
  const out: KObj[] = [];
  for (const d of docs) {
    if (d.errors.length)
      throw new MicroRemedError(
        "E_CONFIG",
        `${file}: ${d.errors[0].message}`,
        "fix the YAML of the manifest",
      );
    const o = d.toJSON() as KObj | null;
    if (o && typeof o === "object") out.push(o);
  }
  return out;
}

/** A system from its folder: env.yaml, its manifests, source config and topology, all checked. */
export function loadEnv(nameOrPath: string): EnvSpec {
  const dir = envDir(nameOrPath);
  const file = join(dir, "env.yaml");
  if (!existsSync(file))
    throw new MicroRemedError(
      "E_UNKNOWN_ENV",
      isEnvPath(nameOrPath) ? `${dir} has no env.yaml` : `unknown env "${nameOrPath}"`,
      `use one of: ${listEnvs().join(", ")}, or a folder with an env.yaml (microremed env init DIR writes one)`,
    );
  const y = readYaml(file, "E_CONFIG", "env file");
  const raw = checkYaml<EnvFile>(y, ENV_SCHEMA, "E_CONFIG");
  const top = readYaml(join(dir, raw.topology), "E_CONFIG", "topology file");
  const topology = checkYaml<TopologyDoc>(top, TOPOLOGY_SCHEMA, "E_CONFIG");
  const env: EnvSpec = {
    name: raw.name,
    dir,
    defaultNamespace: raw.defaultNamespace,
    readyTimeoutSeconds: raw.readyTimeoutSeconds,
    // an incident scenario's targets are its alerting services, taken as a failure's targets
    faultTargets: Object.fromEntries([
      ...Object.entries(raw.faultTargets).map(([f, ts]) => [
        f,
        ts.map((t) => (typeof t === "string" ? t : t.service)),
      ]),
      ...Object.entries(raw.incidentTargets ?? {}).map(([s, ts]) => [s, ts.map((t) => t.alert)]),
    ]),
    targetParams: Object.fromEntries([
      ...Object.entries(raw.faultTargets).map(([f, ts]) => [
        f,
        Object.fromEntries(ts.flatMap((t) => (typeof t === "string" ? [] : [[t.service, t.params]]))),
      ]),
      ...Object.entries(raw.incidentTargets ?? {}).map(([s, ts]) => [
        s,
        Object.fromEntries(ts.map((t) => [t.alert, t.params])),
      ]),
    ]),
    ...(raw.userCheck ? { userCheck: raw.userCheck } : {}),
    pingTarget: raw.pingTarget,
    manifests: readManifests(join(dir, raw.manifests)),
    sourceConfig: readManifests(join(dir, raw.sourceConfig)),
    topology,
  };
  checkConsistent(env, y, top);
  return env;
}

/** The original manifest of a service, from --manifest-path or the env's source config. */
export function sourceManifest(env: EnvSpec, service: string, manifestPath?: string): KObj {
  const docs = manifestPath ? readManifests(manifestPath) : env.sourceConfig;
  const found =
    docs.find((d) => d.kind === "Deployment" && d.metadata?.name === service) ??
    env.manifests.find((d) => d.kind === "Deployment" && d.metadata?.name === service);
  if (!found)
    throw new MicroRemedError(
      "E_CONFIG",
      `no original manifest for Deployment ${service}`,
      `add it to ${manifestPath ?? join(env.dir, "source-config.yaml")}`,
    );
  return found;
}
