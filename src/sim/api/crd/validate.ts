// Validation of custom resources against their CRD version's OpenAPI v3 schema, with the field
// errors apiextensions-apiserver gives (kube-openapi pkg/validation/errors wording, wrapped as
// field.Invalid / field.Required / field.NotSupported): type, enum, bounds, length, pattern and
// required properties.
import type { StatusCause } from "../status.js";
import type { Schema } from "./schema.js";

export interface ValidationSchema extends Schema {
  properties?: Record<string, ValidationSchema>;
  items?: ValidationSchema;
  additionalProperties?: ValidationSchema | boolean;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v === "object" ? "object" : typeof v;
}

function typeOk(want: string, v: unknown): boolean {
  const got = jsonType(v);
  return got === want || (want === "number" && got === "integer");
}

const q = (v: unknown) => JSON.stringify(v);

function check(v: unknown, s: ValidationSchema | undefined, path: string, out: StatusCause[]): void {
  if (!s) return;
  if (v === null && s.nullable) return;
  const intOrString = s["x-kubernetes-int-or-string"] && (typeof v === "string" || Number.isInteger(v));
  if (s.type && !intOrString && !typeOk(s.type, v)) {
    const got = jsonType(v);
    out.push({
      field: path,
      message: `Invalid value: "${got}": ${path} in body must be of type ${s.type}: "${got}"`,
    });
    return;
  }
  if (s.enum && !s.enum.some((e) => q(e) === q(v)))
    out.push({
      field: path,
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${q(v)}: supported values: ${s.enum.map(q).join(", ")}`,
    });
  if (typeof v === "number") {
    if (s.minimum !== undefined && v < s.minimum)
      out.push({
        field: path,
        message: `Invalid value: ${v}: ${path} in body should be greater than or equal to ${s.minimum}`,
      });
    if (s.maximum !== undefined && v > s.maximum)
      out.push({
        field: path,
        message: `Invalid value: ${v}: ${path} in body should be less than or equal to ${s.maximum}`,
      });
  }
  if (typeof v === "string") {
    if (s.minLength !== undefined && v.length < s.minLength)
      out.push({
        field: path,
        message: `Invalid value: ${q(v)}: ${path} in body should be at least ${s.minLength} chars long`,
      });
    if (s.maxLength !== undefined && v.length > s.maxLength)
      out.push({
        field: path,
        reason: "FieldValueTooLong",
        message: `Too long: may not be more than ${s.maxLength} bytes`,
      });
    if (s.pattern && !new RegExp(s.pattern).test(v))
      out.push({
        field: path,
        message: `Invalid value: ${q(v)}: ${path} in body should match '${s.pattern}'`,
      });
  }
  if (Array.isArray(v)) for (const [i, item] of v.entries()) check(item, s.items, `${path}[${i}]`, out);
  if (!isObj(v)) return;
  const at = (k: string) => (path ? `${path}.${k}` : k);
  for (const r of s.required ?? [])
    if (v[r] === undefined)
      out.push({ field: at(r), reason: "FieldValueRequired", message: "Required value" });
  for (const [k, item] of Object.entries(v)) {
    if (item === undefined || (!path && (k === "apiVersion" || k === "kind" || k === "metadata"))) continue;
    const sub = s.properties?.[k] ?? (isObj(s.additionalProperties) ? s.additionalProperties : undefined);
    check(item, sub as ValidationSchema | undefined, at(k), out);
  }
}

/** The field errors of a custom resource, empty when it is valid. */
export function validateCustom(obj: Obj, schema: ValidationSchema | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  check(obj, schema, "", out);
  return out;
}
