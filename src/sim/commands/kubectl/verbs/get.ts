// kubectl get: objects by name or all of a type (-l, --field-selector, -A), printed as the
// server's Table (Accept: as=Table) or as -o json|yaml|name|jsonpath. A name not found is an
// error the other names do not stop; an empty list says `No resources found in NS namespace.` on
// stderr (k8s.io/kubectl/pkg/cmd/get/get.go).
import type { ResourceType } from "../../../core/types.js";
import { StatusError } from "../client.js";
import type { Run, Verb } from "../context.js";
import { errorText } from "../errors.js";
import { outputFormat, printObjects, printTable } from "../output.js";
import { nameOf, pathOf, resolveResource, targets } from "../resources.js";

type J = Record<string, unknown>;
const TABLE =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

async function run(r: Run): Promise<number> {
  const { f, p } = r;
  const fmt = outputFormat(f.str("output"));
  const all = f.bool("all-namespaces");
  const ns = all ? undefined : r.namespace();
  const list = targets(f.args, true);
  const client = r.client();
  const q = new URLSearchParams();
  if (f.str("selector")) q.set("labelSelector", f.str("selector")!);
  if (f.str("field-selector")) q.set("fieldSelector", f.str("field-selector")!);
  const query = q.toString() ? `?${q}` : "";
  const table = fmt.kind === "table" || fmt.kind === "wide";
  const objects: J[] = [];
  let failed = false;
  let out = "";
  const kinds = new Set(list.map((t) => t.rt.resource));
  let printedTables = 0;
  for (const t of list) {
    try {
      const a = await client.request("GET", `${pathOf(t.rt, ns, t.name)}${t.name ? "" : query}`, {
        accept: table ? TABLE : "application/json",
      });
      const body = a.json();
      if (table) {
        if (!(body.rows as unknown[] | undefined)?.length) continue;
        if (printedTables++) out += "\n";
        if (f.bool("show-labels")) withLabels(body);
        out += printTable(body as never, {
          wide: fmt.kind === "wide",
          namespace: all && t.rt.namespaced,
          noHeaders: f.bool("no-headers"),
          kindPrefix: kinds.size > 1 ? nameOf(t.rt, "").slice(0, -1) : undefined,
        });
      } else if (t.name) objects.push(body);
      else
        for (const item of (body.items as J[] | undefined) ?? [])
          objects.push({ apiVersion: apiVersion(t.rt), kind: t.rt.kind, ...item });
    } catch (e) {
      if (e instanceof StatusError && e.http === 404 && f.bool("ignore-not-found")) continue;
      p.out(out);
      out = "";
      p.stderr.write(`${errorText(e)}\n`);
      failed = true;
    }
  }
  if (!table)
    out += printObjects(
      objects,
      fmt,
      (o) => resolveResource(String(o.kind)),
      list.length === 1 && !!list[0].name,
    );
  p.out(out);
  const named = list.some((t) => t.name);
  if (
    !failed &&
    !named &&
    (table ? printedTables === 0 : objects.length === 0) &&
    fmt.kind !== "json" &&
    fmt.kind !== "yaml"
  ) {
    const scoped = ns !== undefined && list.every((t) => t.rt.namespaced);
    p.stderr.write(scoped ? `No resources found in ${ns} namespace.\n` : "No resources found\n");
  }
  return failed ? 1 : 0;
}

/** --show-labels: a LABELS column, each row's labels as key=value sorted by key, else <none>. */
function withLabels(table: J): void {
  (table.columnDefinitions as J[]).push({ name: "Labels", type: "string", priority: 0 });
  for (const row of (table.rows as J[] | undefined) ?? []) {
    const labels = (((row.object as J | undefined)?.metadata as J | undefined)?.labels ?? {}) as Record<
      string,
      string
    >;
    const text = Object.keys(labels)
      .sort()
      .map((k) => `${k}=${labels[k]}`)
      .join(",");
    (row.cells as unknown[]).push(text || "<none>");
  }
}

const apiVersion = (rt: ResourceType) => (rt.group ? `${rt.group}/${rt.version}` : rt.version);

export const get: Verb = {
  flags: {
    output: { type: "string", short: "o" },
    selector: { type: "string", short: "l" },
    "field-selector": { type: "string" },
    "all-namespaces": { type: "bool", short: "A" },
    "no-headers": { type: "bool" },
    "ignore-not-found": { type: "bool" },
    "show-labels": { type: "bool" },
    "show-kind": { type: "bool" },
    watch: { type: "bool", short: "w" },
    "chunk-size": { type: "string" },
    "sort-by": { type: "string" },
    filename: { type: "strings", short: "f" },
  },
  run,
};
