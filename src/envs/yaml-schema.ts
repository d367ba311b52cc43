// YAML files a user writes (env folders, chaos templates, experiment files), checked against a
// JSON schema with ajv. An error names the file, the line (from yaml's node ranges and a
// LineCounter) and the fix: a schema node may carry `fix` (what to write there), and unknown or
// missing fields list what is allowed.
import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject } from "ajv";
import { type Document, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { type ErrorCode, MicroRemedError } from "../errors.js";

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, verbose: true });
ajv.addKeyword({ keyword: "fix", schemaType: "string" });
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

export interface YamlFile {
  file: string;
  doc: Document;
  lines: LineCounter;
  data: unknown;
}

/** Parse YAML text; a syntax error names its line. */
export function parseYaml(text: string, file: string, code: ErrorCode): YamlFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line ?? 1;
    throw new MicroRemedError(
      code,
      `${file}:${line}: ${e.message.split("\n")[0]}`,
      "fix the YAML syntax on that line",
    );
  }
  return { file, doc, lines, data: doc.toJS() };
}

export function readYaml(file: string, code: ErrorCode, what = "file"): YamlFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new MicroRemedError(
      code,
      `cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      `check the path of the ${what}`,
    );
  }
  return parseYaml(text, file, code);
}

/** The 1-based line of the node at a JSON pointer (the nearest existing parent's line). */
export function lineOf(y: YamlFile, pointer: string): number {
  const path = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  let node: unknown = y.doc.contents;
  let at = (node as Node | null)?.range?.[0] ?? 0;
  for (const seg of path) {
    if (isSeq(node)) {
      const item = node.items[Number(seg)] as Node | undefined;
      if (!item) break;
      at = item.range?.[0] ?? at;
      node = item;
    } else if (isMap(node)) {
      const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      // the key's line: a nested map's own range starts on the line after its key
      at = (pair.key as Node | null)?.range?.[0] ?? at;
      node = pair.value;
    } else break;
  }
  return y.lines.linePos(at).line;
}

interface SchemaNode {
  fix?: string;
  properties?: Record<string, SchemaNode>;
}

function explain(e: ErrorObject): { where: string; message: string; fix: string } {
  const where = e.instancePath ? e.instancePath.slice(1).replaceAll("/", ".") : "(top level)";
  const parent = (e.parentSchema ?? {}) as SchemaNode;
  const allowed = Object.keys(parent.properties ?? {});
  switch (e.keyword) {
    case "additionalProperties": {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      return {
        where,
        message: `unknown field "${field}"`,
        fix: `remove "${field}"${allowed.length ? `; allowed here: ${allowed.join(", ")}` : ""}`,
      };
    }
    case "required": {
      const field = (e.params as { missingProperty: string }).missingProperty;
      const hint = parent.properties?.[field]?.fix;
      return { where, message: `"${field}" is missing`, fix: `add "${field}"${hint ? `: ${hint}` : ""}` };
    }
    case "enum":
      return {
        where,
        message: `${e.message}`,
        fix: `use one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")}`,
      };
    default:
      return { where, message: `${e.message}`, fix: parent.fix ?? "see the format in the file's header" };
  }
}

/**
 * Validate a parsed YAML file, or the part of it at pointer `sub.at`; the error names file:line,
 * the field, what is wrong and the fix.
 */
export function checkYaml<T>(
  y: YamlFile,
  schema: object,
  code: ErrorCode,
  sub?: { data: unknown; at: string },
): T {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  const data = sub ? sub.data : y.data;
  if (v(data)) return data as T;
  // the deepest error is the most precise; anyOf/oneOf wrappers and type mismatches say less
  const rank = (e: ErrorObject) =>
    e.instancePath.split("/").length * 10 +
    (e.keyword === "additionalProperties" ? 3 : 0) -
    (["anyOf", "oneOf", "if"].includes(e.keyword) ? 5 : 0) -
    (/\/(anyOf|oneOf)\//.test(e.schemaPath) ? 2 : 0) -
    (e.keyword === "type" ? 1 : 0);
  const e = [...(v.errors ?? [])].sort((a, b) => rank(b) - rank(a))[0];
  const pointer = `${sub?.at ?? ""}${e.instancePath}${
    e.keyword === "additionalProperties"
      ? `/${(e.params as { additionalProperty: string }).additionalProperty}`
      : ""
  }`;
  const x = explain({ ...e, instancePath: `${sub?.at ?? ""}${e.instancePath}` });
  throw new MicroRemedError(code, `${y.file}:${lineOf(y, pointer)}: ${x.where}: ${x.message}`, x.fix);
}
