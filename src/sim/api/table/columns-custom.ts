// Custom resources (additionalPrinterColumns evaluated like apiextensions-apiserver) and the
// fallbacks for kinds that have no printer.
import type { KObject } from "../../core/types.js";
import { parseTime, since } from "./duration.js";
import { AGE_DESC, type Cell, type ColumnDefinition, NAME_COL, type Printer } from "./types.js";

/** One entry of a CRD version's additionalPrinterColumns. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

/**
 * What the Chaos Mesh 2.x CRDs declare (controller-gen from +kubebuilder:printcolumn markers).
 * PodChaos declares none, so it gets the CRD default (Name, Age).
 */
export const CHAOS_MESH_COLUMNS: Record<string, PrinterColumn[]> = {
  StressChaos: [{ name: "duration", type: "string", jsonPath: ".spec.duration" }],
  NetworkChaos: [
    { name: "action", type: "string", jsonPath: ".spec.action" },
    { name: "duration", type: "string", jsonPath: ".spec.duration" },
  ],
  IOChaos: [
    { name: "action", type: "string", jsonPath: ".spec.action" },
    { name: "duration", type: "string", jsonPath: ".spec.duration" },
  ],
  PodChaos: [],
  HTTPChaos: [{ name: "duration", type: "string", jsonPath: ".spec.duration" }],
};

/** A CRD without printer columns is served with an Age column alone. */
const CRD_DEFAULT: PrinterColumn[] = [
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: AGE_DESC },
];

type Step = { key: string } | { index: number } | { filter: string; value: string };

/** Parses the simple JSONPath subset CRDs use: .a.b, ['a.b'], [0], [?(@.type=="Ready")]. */
export function parseJsonPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  const re =
    /^(?:\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]|\[\?\(@\.([A-Za-z0-9_.-]+)\s*==\s*["']([^"']*)["']\)\])/;
  let rest = path.trim().replace(/^\{|\}$/g, "");
  if (rest.startsWith("$")) rest = rest.slice(1);
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined || m[4] !== undefined) steps.push({ key: (m[3] ?? m[4]) as string });
    else steps.push({ filter: m[5], value: m[6] });
    rest = rest.slice(m[0].length);
  }
  return steps;
}

export function evalJsonPath(obj: unknown, steps: Step[]): unknown {
  let cur: unknown = obj;
  for (const s of steps) {
    if (cur === undefined || cur === null) return undefined;
    if ("key" in s) cur = typeof cur === "object" ? (cur as Record<string, unknown>)[s.key] : undefined;
    else if ("index" in s) cur = Array.isArray(cur) ? cur[s.index] : undefined;
    else {
      if (!Array.isArray(cur)) return undefined;
      const path = s.filter.split(".");
      cur = cur.find(
        (item) =>
          String(
            path.reduce<unknown>(
              (v, k) => (v === null || v === undefined ? undefined : (v as Record<string, unknown>)[k]),
              item,
            ),
          ) === s.value,
      );
    }
  }
  return cur;
}

/** Go's fmt.Fprint of a decoded JSON value, which the jsonpath printer uses for "string" columns. */
export function goPrint(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goPrint).join(" ")}]`;
  if (typeof v === "object") {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goPrint((v as Record<string, unknown>)[k])}`)
      .join(" ")}]`;
  }
  return String(v);
}

/** cellForJSONValue: typed cells; a missing value or a type mismatch is null (kubectl shows <none>). */
function cellFor(type: string, v: unknown, now: number): Cell {
  if (v === undefined || v === null) return null;
  switch (type) {
    case "string":
      return goPrint(v);
    case "integer":
      return typeof v === "number" ? Math.trunc(v) : null;
    case "number":
      return typeof v === "number" ? v : null;
    case "boolean":
      return typeof v === "boolean" ? v : null;
    case "date":
      if (typeof v !== "string") return null;
      return parseTime(v) === undefined ? "<invalid>" : since(v, now);
  }
  return null;
}

export function crdPrinter(columns: PrinterColumn[] | undefined, kind: string): Printer {
  const cols = columns ?? CHAOS_MESH_COLUMNS[kind] ?? [];
  const effective = cols.length > 0 ? cols : CRD_DEFAULT;
  const paths = effective.map((c) => parseJsonPath(c.jsonPath));
  const defs: ColumnDefinition[] = [
    NAME_COL,
    ...effective.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: defs,
    cells: (o, { now }) => [
      o.metadata.name ?? "",
      ...effective.map((c, i) => {
        const steps = paths[i];
        return steps ? cellFor(c.type, evalJsonPath(o, steps), now) : null;
      }),
    ],
  };
}

/** Built-in kinds the API server has no printer for use the default convertor: NAME, CREATED AT. */
export const defaultConvertorPrinter: Printer = {
  columns: [NAME_COL, { name: "Created At", type: "date", format: "", description: AGE_DESC, priority: 0 }],
  cells(o: KObject) {
    const t = parseTime(o.metadata.creationTimestamp) ?? Date.parse("0001-01-01T00:00:00Z");
    return [o.metadata.name ?? "", new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z")];
  },
};

/** Kinds nothing here knows: the name and the age. */
export const nameAgePrinter: Printer = {
  columns: [NAME_COL, { name: "Age", type: "string", format: "", description: AGE_DESC, priority: 0 }],
  cells: (o, { now }) => [o.metadata.name ?? "", since(o.metadata.creationTimestamp, now)],
};
