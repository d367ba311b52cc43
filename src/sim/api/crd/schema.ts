// Structural schemas of CRD versions: pruning of unknown fields and defaulting, as
// apiextensions-apiserver applies them to custom resources (pkg/apiserver/schema/pruning and
// schema/defaulting): prune first, then fill every absent property whose schema has a default.

/** The part of an OpenAPI v3 schema (JSONSchemaProps) that pruning and defaulting read. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  default?: unknown;
  nullable?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Drop fields the schema does not specify, unless it preserves unknown fields there. */
function prune(value: unknown, s: Schema | undefined, root: boolean): void {
  if (!s) return;
  if (Array.isArray(value)) {
    for (const item of value) prune(item, s.items, false);
    return;
  }
  if (!isObj(value)) return;
  const embedded = root || s["x-kubernetes-embedded-resource"];
  for (const key of Object.keys(value)) {
    if (embedded && (key === "apiVersion" || key === "kind" || key === "metadata")) continue;
    const prop = s.properties?.[key];
    if (prop) prune(value[key], prop, false);
    else if (isObj(s.additionalProperties)) prune(value[key], s.additionalProperties, false);
    else if (!s["x-kubernetes-preserve-unknown-fields"] && s.additionalProperties !== true) delete value[key];
  }
}

/** Fill absent (and non-nullable null) properties with their schema's default, depth first. */
function fill(value: unknown, s: Schema | undefined): void {
  if (!s) return;
  if (Array.isArray(value)) {
    for (const item of value) fill(item, s.items);
    return;
  }
  if (!isObj(value)) return;
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    const absent = !(key in value) || (value[key] === null && !prop.nullable);
    if (absent && prop.default !== undefined) value[key] = structuredClone(prop.default);
    if (key in value) fill(value[key], prop);
  }
  if (isObj(s.additionalProperties))
    for (const key of Object.keys(value))
      if (!s.properties?.[key]) fill(value[key], s.additionalProperties as Schema);
}

/** Prune and default a custom resource in place (what the API server stores and returns). */
export function structural(obj: Obj, schema: Schema | undefined): void {
  if (!schema) return;
  prune(obj, schema, true);
  fill(obj, schema);
}

/** Defaulting alone, as the API server applies it when it reads an object stored earlier. */
export function defaultOnRead<T extends Obj>(obj: T, schema: Schema | undefined): T {
  if (!schema || !hasDefaults(schema)) return obj;
  const copy = structuredClone(obj);
  fill(copy, schema);
  return copy;
}

const withDefaults = new WeakMap<Schema, boolean>();

function hasDefaults(s: Schema): boolean {
  let known = withDefaults.get(s);
  if (known === undefined) {
    const subs = [
      ...Object.values(s.properties ?? {}),
      s.items,
      isObj(s.additionalProperties) ? s.additionalProperties : undefined,
    ];
    known = s.default !== undefined || subs.some((x) => x && hasDefaults(x as Schema));
    withDefaults.set(s, known);
  }
  return known;
}
