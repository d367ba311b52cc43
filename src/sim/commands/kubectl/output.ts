// kubectl's printers (k8s.io/cli-runtime/pkg/printers): -o json (Go's encoding/json, keys sorted,
// four-space indent, HTML characters escaped), -o yaml (sigs.k8s.io/yaml: keys sorted, lists at
// their key's indent), -o name, -o jsonpath=..., and the server's Table as the human-readable
// printer lays it out (text/tabwriter, three spaces between columns, priority-1 columns only with
// -o wide, NAMESPACE first with -A).
import { Document, parse, Scalar, visit } from "yaml";
import type { ResourceType } from "../../core/types.js";
import { KubectlError } from "./client.js";
import { jsonpath } from "./jsonpath.js";
import { nameOf } from "./resources.js";

type J = Record<string, unknown>;

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v as J)
        .sort()
        .map((k) => [k, sorted((v as J)[k])]),
    );
  return v;
}

export function toJson(v: unknown): string {
  const s = JSON.stringify(sorted(v), null, 4)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026");
  return `${s}\n`;
}

/**
 * go-yaml v2's choices: a string that would read back as something else in YAML 1.1 (on, y, a
 * number, a timestamp) in double quotes, one that cannot be plain in single quotes, several
 * lines as a literal block, lines folded at 80 columns.
 */
export function toYaml(v: unknown): string {
  const doc = new Document(sorted(v), { version: "1.1" });
  visit(doc, {
    Scalar(_, node) {
      const s = node.value;
      if (typeof s !== "string" || s.includes("\n")) return;
      let back: unknown;
      try {
        back = parse(s, { version: "1.1" });
      } catch {
        back = undefined;
      }
      if (back !== s && s !== "" && typeof back !== "undefined" && back !== null && typeof back !== "string")
        node.type = Scalar.QUOTE_DOUBLE;
      else if (s === "" || back === null) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc.toString({ indentSeq: false, singleQuote: true, lineWidth: 80 });
}

/** A List of the objects, as kubectl wraps several for -o json|yaml. */
export function listOf(items: unknown[]): J {
  return { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
}

export type OutputFormat =
  | { kind: "json" }
  | { kind: "yaml" }
  | { kind: "name" }
  | { kind: "jsonpath"; template: string }
  | { kind: "wide" }
  | { kind: "table" };

export function outputFormat(o: string | undefined): OutputFormat {
  if (o === undefined || o === "") return { kind: "table" };
  if (o === "json" || o === "yaml" || o === "name" || o === "wide") return { kind: o };
  const m = /^jsonpath(?:-as-json)?=(.*)$/s.exec(o);
  if (m) return { kind: "jsonpath", template: m[1] };
  throw new KubectlError(
    `error: unable to match a printer suitable for the output format "${o}", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml`,
  );
}

/** Print one or more objects in a structured format (not a table). */
export function printObjects(
  all: J[],
  fmt: OutputFormat,
  rtOf: (o: J) => ResourceType | undefined,
  single: boolean,
): string {
  const objs = all.map(withoutManagedFields);
  const whole = single && objs.length === 1 ? objs[0] : listOf(objs);
  switch (fmt.kind) {
    case "json":
      return toJson(whole);
    case "yaml":
      return toYaml(whole);
    case "name":
      return objs
        .map((o) => {
          const rt = rtOf(o);
          const name = String((o.metadata as J | undefined)?.name ?? "");
          return `${rt ? nameOf(rt, name) : `${String(o.kind).toLowerCase()}/${name}`}\n`;
        })
        .join("");
    case "jsonpath":
      return jsonpath(fmt.template, whole);
    default:
      return "";
  }
}

/** kubectl's printers leave managedFields out unless --show-managed-fields. */
function withoutManagedFields(o: J): J {
  const meta = o.metadata as J | undefined;
  if (!meta || !("managedFields" in meta)) return o;
  const { managedFields: _, ...rest } = meta;
  return { ...o, metadata: rest };
}

interface Column {
  name: string;
  priority?: number;
}

/** The server's Table, as kubectl's table printer lays it out. */
export function printTable(
  table: { columnDefinitions?: Column[]; rows?: { cells: unknown[]; object?: J }[] },
  opts: { wide: boolean; namespace?: boolean; noHeaders?: boolean; kindPrefix?: string },
): string {
  const cols = (table.columnDefinitions ?? [])
    .map((c, i) => ({ ...c, i }))
    .filter((c) => opts.wide || !c.priority);
  const rows: string[][] = [];
  const head = cols.map((c) => c.name.toUpperCase());
  if (opts.namespace) head.unshift("NAMESPACE");
  if (!opts.noHeaders) rows.push(head);
  for (const r of table.rows ?? []) {
    const cells = cols.map((c, k) => {
      const v = r.cells[c.i];
      const s = v === null || v === undefined ? "<none>" : String(v);
      return k === 0 && opts.kindPrefix ? `${opts.kindPrefix}/${s}` : s;
    });
    if (opts.namespace) cells.unshift(String((r.object?.metadata as J | undefined)?.namespace ?? ""));
    rows.push(cells);
  }
  return tabwrite(rows);
}

/** text/tabwriter with padding 3: each column as wide as its widest cell, the last unpadded. */
export function tabwrite(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return rows
    .map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 3))).join("")}\n`)
    .join("");
}
