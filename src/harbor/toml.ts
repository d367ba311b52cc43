// Writing a task.toml: the few TOML forms Harbor's task model uses (strings, numbers, booleans,
// arrays of them, tables as sections and arrays of tables), per the TOML 1.0 specification (toml.io).
// A JSON string is a valid TOML basic string: both escape ", \ and control characters alike.
type Scalar = string | number | boolean;
export type TomlValue = Scalar | Scalar[] | TomlTable | TomlTable[];
export interface TomlTable {
  [key: string]: TomlValue | undefined;
}

const isTable = (v: unknown): v is TomlTable => typeof v === "object" && v !== null && !Array.isArray(v);
const isTables = (v: unknown): v is TomlTable[] => Array.isArray(v) && v.length > 0 && v.every(isTable);
const key = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));

function scalar(v: Scalar): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`TOML cannot hold ${v}`);
    return String(v);
  }
  return v ? "true" : "false";
}

const value = (v: Scalar | Scalar[]) => (Array.isArray(v) ? `[${v.map(scalar).join(", ")}]` : scalar(v));

/** A document: plain keys first, then each table and array of tables under its dotted path. */
export function toToml(doc: TomlTable, path: string[] = []): string {
  const lines: string[] = [];
  const nested: [string, TomlTable | TomlTable[]][] = [];
  for (const [k, v] of Object.entries(doc)) {
    if (v === undefined) continue;
    // every table is a section of its own (a sub-table after [[a.b]] belongs to its last element)
    if (isTable(v) || isTables(v)) nested.push([k, v]);
    else lines.push(`${key(k)} = ${value(v as Scalar | Scalar[])}`);
  }
  const out = [lines.join("\n")];
  for (const [k, v] of nested) {
    const at = [...path, key(k)];
    if (Array.isArray(v)) for (const t of v) out.push(`[[${at.join(".")}]]\n${toToml(t, at)}`.trimEnd());
    else out.push(`[${at.join(".")}]\n${toToml(v, at)}`.trimEnd());
  }
  return `${out.filter(Boolean).join("\n\n")}\n`;
}
