// Validating files a user writes with ajv, with errors that name the file, the place and the fix.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { type ErrorCode, MicroRemedError } from "../errors.js";

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const cache = new WeakMap<object, ValidateFunction>();

function describe(e: ErrorObject): string {
  const where = e.instancePath || "(top level)";
  if (e.keyword === "additionalProperties")
    return `${where}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === "enum")
    return `${where}: ${e.message} (${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")})`;
  return `${where}: ${e.message}`;
}

export function validateWith<T>(
  schema: object,
  data: unknown,
  file: string,
  code: ErrorCode,
  fix: string,
): T {
  let v = cache.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    cache.set(schema, v);
  }
  if (!v(data)) {
    const errs = (v.errors ?? []).slice(0, 3).map(describe).join("; ");
    throw new MicroRemedError(code, `${file} is invalid: ${errs}`, fix);
  }
  return data as T;
}
