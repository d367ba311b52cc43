// A microservice system as data: envs/<name>/env.yaml with its manifests and source config.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import type { KObj } from "../cluster/client.js";
import { MicroRemedError } from "../errors.js";
import { packageRoot } from "../util/paths.js";
import { validateWith } from "../util/schema.js";

export interface EnvSpec {
  name: string;
  dir: string;
  defaultNamespace: string;
  readyTimeoutSeconds: number;
  faultTargets: Record<string, string[]>;
  pingTarget: { apps: string[] };
  /** Everything to deploy, in order. */
  manifests: KObj[];
  /** The original manifests of the fault targets, for restore. */
  sourceConfig: KObj[];
}

const SCHEMA = {
  type: "object",
  required: ["name", "defaultNamespace", "manifests", "sourceConfig", "faultTargets", "pingTarget"],
  properties: {
    name: { type: "string" },
    defaultNamespace: { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" },
    manifests: { type: "string" },
    sourceConfig: { type: "string" },
    topology: { type: "string" },
    readyTimeoutSeconds: { type: "number", minimum: 1, default: 300 },
    faultTargets: {
      type: "object",
      additionalProperties: { type: "array", items: { type: "string" }, minItems: 1 },
    },
    pingTarget: {
      type: "object",
      required: ["apps"],
      properties: { apps: { type: "array", items: { type: "string" }, minItems: 1 } },
    },
  },
};

export function envsDir(): string {
  return join(packageRoot(), "envs");
}

export function listEnvs(): string[] {
  return readdirSync(envsDir())
    .filter((d) => existsSync(join(envsDir(), d, "env.yaml")))
    .sort();
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

export function loadEnv(name: string): EnvSpec {
  const dir = join(envsDir(), name);
  const file = join(dir, "env.yaml");
  if (!existsSync(file))
    throw new MicroRemedError(
      "E_UNKNOWN_ENV",
      `unknown env "${name}"`,
      `use one of: ${listEnvs().join(", ")}`,
    );
  const raw = validateWith<{
    name: string;
    defaultNamespace: string;
    manifests: string;
    sourceConfig: string;
    readyTimeoutSeconds: number;
    faultTargets: Record<string, string[]>;
    pingTarget: { apps: string[] };
  }>(SCHEMA, parse(readFileSync(file, "utf8")), file, "E_CONFIG", "fix the env file");
  return {
    name: raw.name,
    dir,
    defaultNamespace: raw.defaultNamespace,
    readyTimeoutSeconds: raw.readyTimeoutSeconds,
    faultTargets: raw.faultTargets,
    pingTarget: raw.pingTarget,
    manifests: readManifests(join(dir, raw.manifests)),
    sourceConfig: readManifests(join(dir, raw.sourceConfig)),
  };
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
