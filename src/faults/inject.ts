// Injecting a failure: a Chaos Mesh object from a template (created in Chaos Mesh's namespace,
// selecting the target's: namespace.ts), the config patch, or an expert type's change of the
// target. Removing the chaos is remove.ts's.
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse } from "yaml";
import { MANAGED_LABEL, MANAGED_VALUE } from "../envs/deploy.js";
import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import type { Chaos, Deployment, KObj } from "../kube/objects.js";
import { parseGoDuration } from "../util/duration.js";
import { packageRoot } from "../util/paths.js";
import type { FailureType } from "./catalog.js";
import { scenarioPlaceholders } from "./incident.js";
import type { Injection, Touched } from "./injection.js";
import { CHAOS_KINDS, CHAOS_NAMESPACE, chaosLabels, chaosName, ensureChaosNamespace } from "./namespace.js";
import { retargetingField } from "./params.js";

export type { Injection, Touched } from "./injection.js";

export { CHAOS_KINDS } from "./namespace.js";

const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

function deepMerge(base: unknown, over: unknown): unknown {
  if (
    over &&
    typeof over === "object" &&
    !Array.isArray(over) &&
    base &&
    typeof base === "object" &&
    !Array.isArray(base)
  ) {
    const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(over)) if (!UNSAFE_KEYS.has(k)) out[k] = deepMerge(out[k], v);
    return out;
  }
  return over === undefined ? base : over;
}

/**
 * The template with its placeholders filled and the experiment's params merged into its spec.
 * A chaos object's selector and namespace are the harness's, whatever the template or the params
 * say: it lives in Chaos Mesh's namespace, named after the target namespace, and selects the
 * case's target there; params that would retarget the fault are refused.
 */
export function renderTemplate(
  f: FailureType,
  vars: Record<string, string>,
  params?: Record<string, unknown>,
): KObj {
  const field = retargetingField(params);
  if (field)
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `params.${field} of ${f.id} would retarget the fault`,
      "remove it: params tune a fault's strength and duration; the harness targets the case's service",
    );
  if (params && f.kind === "patch")
    throw new MicroRemedError(
      "E_EXPERIMENT_FILE",
      `${f.id} takes no params`,
      "remove params from this fault",
    );
  let text = readFileSync(isAbsolute(f.template) ? f.template : join(packageRoot(), f.template), "utf8");
  for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`[${k}]`, v);
  const obj = parse(text) as Chaos;
  const out = params ? (deepMerge(obj, { spec: params }) as KObj) : obj;
  if (f.kind === "patch") return out;
  const ns = vars.target_namespace;
  const spec = (out.spec ?? {}) as Record<string, unknown>;
  return {
    ...out,
    metadata: {
      ...out.metadata,
      name: chaosName(ns, out.metadata?.name ?? f.id.replace(/[^a-z0-9-]+/g, "-")),
      namespace: CHAOS_NAMESPACE,
    },
    spec: {
      ...spec,
      selector: { namespaces: [ns], labelSelectors: { app: vars.target_pod } },
      mode: obj.spec?.mode ?? "one",
      ...(obj.spec?.value !== undefined ? { value: obj.spec.value } : {}),
    },
  };
}

/** A placeholder's value as text: strings as they are, anything else as JSON (YAML reads it as a flow value). */
const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** The placeholders a template names (`[name]`), read from its text. */
export function placeholdersOf(f: FailureType): string[] {
  if (f.incident) return scenarioPlaceholders(f.incident);
  const text = readFileSync(isAbsolute(f.template) ? f.template : join(packageRoot(), f.template), "utf8");
  const body = text
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"))
    .join("\n");
  return [...new Set([...body.matchAll(/\[([a-z_]+)\]/g)].map((m) => m[1]))];
}

/** The placeholders the injector fills from the live target: its namespace, app, main container, image. */
export const LIVE_PLACEHOLDERS = [
  "target_namespace",
  "target_pod",
  "target_container",
  "target_container_index",
  "target_image_repo",
];

/** An image reference without its tag (a registry's port stays: only a ':' after the last '/' is a tag). */
export function imageRepo(image: string): string {
  const at = image.indexOf("@");
  const ref = at >= 0 ? image.slice(0, at) : image;
  const colon = ref.lastIndexOf(":");
  return colon > ref.lastIndexOf("/") ? ref.slice(0, colon) : ref;
}

/** The expert types' injections: a patch or a deletion of the target, or an object in the namespace. */
async function injectChange(
  client: KubeClient,
  f: FailureType,
  namespace: string,
  service: string,
  vars: Record<string, string>,
): Promise<Injection> {
  const target =
    f.target === "Service"
      ? { apiVersion: "v1", kind: "Service" }
      : { apiVersion: "apps/v1", kind: "Deployment" };
  const done = (touched: Touched[]): Injection => ({ failure: f.id, namespace, service, touched });
  if (f.kind === "delete") {
    await client.delete(target.apiVersion, target.kind, namespace, service);
    return done([{ ...target, name: service, action: "deleted" }]);
  }
  const rendered = renderText(f, vars);
  if (f.kind === "object") {
    const obj = rendered as KObj;
    obj.metadata = { ...obj.metadata, namespace };
    await client.create(obj, namespace);
    return done([
      { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name!, action: "created" },
    ]);
  }
  await client.patch(target.apiVersion, target.kind, namespace, service, rendered, f.patchType);
  return done([{ ...target, name: service, action: "patched" }]);
}

/** The template's text with its placeholders filled, parsed (an object, or a JSON patch's list). */
function renderText(f: FailureType, vars: Record<string, string>): unknown {
  let text = readFileSync(isAbsolute(f.template) ? f.template : join(packageRoot(), f.template), "utf8");
  for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`[${k}]`, v);
  return parse(text);
}

/** The live placeholders of a Deployment target and the given ones, as text. */
async function fill(
  client: KubeClient,
  namespace: string,
  service: string,
  given: Record<string, unknown>,
): Promise<Record<string, string>> {
  const dep = await client.tryGet<Deployment>("apps/v1", "Deployment", namespace, service);
  const main = dep?.spec?.template?.spec?.containers?.[0];
  const live: Record<string, string> = { target_namespace: namespace, target_pod: service };
  if (main) {
    live.target_container = main.name;
    live.target_container_index = "0";
    if (main.image) live.target_image_repo = imageRepo(main.image);
  }
  return { ...Object.fromEntries(Object.entries(given).map(([k, v]) => [k, asText(v)])), ...live };
}

export async function inject(
  client: KubeClient,
  f: FailureType,
  namespace: string,
  service: string,
  params?: Record<string, unknown>,
  vars: Record<string, unknown> = {},
): Promise<Injection> {
  if (f.incident)
    throw new MicroRemedError(
      "E_CONFIG",
      `${f.id} is an incident scenario: its steps take the cluster's clock and several objects`,
      "run it as a case: microremed run ... --experiment-path experiments/incident.txt (or run-all --tiers incident)",
    );
  if (f.tier === "expert" && !CHAOS_KINDS.includes(f.kind))
    return injectChange(client, f, namespace, service, await fill(client, namespace, service, vars));
  if (f.kind === "patch") {
    const dep = await client.tryGet<Deployment>("apps/v1", "Deployment", namespace, service);
    if (!dep)
      throw new MicroRemedError(
        "E_CONFIG",
        `cannot inject ${f.id}: Deployment ${service} is not in namespace ${namespace}`,
        "pick a target that the env deploys",
      );
    const container = dep.spec?.template?.spec?.containers?.[0]?.name ?? service;
    const patch = renderTemplate(
      f,
      { target_container: container, target_namespace: namespace, target_pod: service },
      params,
    );
    await client.patch("apps/v1", "Deployment", namespace, service, patch, "strategic");
    return { failure: f.id, namespace, service, params };
  }
  const obj = renderTemplate(
    f,
    {
      ...Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, asText(v)])),
      target_namespace: namespace,
      target_pod: service,
    },
    params,
  );
  // the labels say the harness made it, for this namespace: removal touches nothing else (removeAllChaos)
  obj.metadata.labels = { ...obj.metadata.labels, ...chaosLabels(namespace) };
  const home = obj.metadata.namespace!;
  await ensureChaosNamespace(client);
  // A leftover object of a case cut off earlier would make the create fail: clear it first (if ours).
  const leftover = await client.tryGet(obj.apiVersion, obj.kind, home, obj.metadata.name!);
  if (leftover?.metadata.labels?.[MANAGED_LABEL] === MANAGED_VALUE)
    await client.delete(obj.apiVersion, obj.kind, home, obj.metadata.name!);
  await client.create(obj, home);
  return {
    failure: f.id,
    namespace,
    service,
    chaos: { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name!, namespace: home },
    params,
    durationMs: parseGoDuration((obj as Chaos).spec?.duration),
  };
}

export { removeAllChaos, removeChaos } from "./remove.js";
