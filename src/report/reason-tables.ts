// The report's tables of reasons: counts per model × method × tier and per failure type, the table
// of codes, and, for exactly two series, their cases side by side.
import type { Report } from "./aggregate.js";
import { DIFF_GROUPS, diffOutcome, GROUP_TITLES } from "./diff.js";
import { codeRows } from "./reason-table.js";
import { seriesLabeller } from "./runs.js";
import { keyColumns, type Table } from "./table-text.js";

const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([code, n]) => `${code} ${n}`)
    .join(", ") || "-";

export function reasonTables(r: Report): Table[] {
  const { head, cells } = keyColumns(r.levels);
  const tables: Table[] = [
    {
      id: "reasons",
      title: "Why cases did not succeed",
      note: "Cases that did not succeed by reason code (see the table of codes), per model, method and tier; errors and injection failures included, under their own codes.",
      head: [...head, "did not succeed", ...r.reasonCodes],
      numeric: [...head.map(() => false), true, ...r.reasonCodes.map(() => true)],
      rows: r.reasons.map((x) => [
        ...cells(x),
        String(Object.values(x.counts).reduce((a, b) => a + b, 0)),
        ...r.reasonCodes.map((c) => String(x.counts[c] ?? 0)),
      ]),
    },
    {
      id: "reasons-by-failure",
      title: "Why cases did not succeed, by failure type",
      note: "All tiers and systems pooled; '-' where every case of that type succeeded or none ran.",
      head: ["failure type", ...r.series.map(seriesLabeller(r.levels))],
      numeric: [false, ...r.series.map(() => false)],
      rows: r.reasonsPerFailure.map((f) => [f.failure, ...f.cells.map(counts)]),
    },
  ];
  if (r.diff) {
    const d = r.diff;
    tables.push({
      id: "diff",
      title: `Side by side: A = ${d.a}, B = ${d.b}`,
      note: `Cases paired by index within runs of the same system, experiment file and seed: ${DIFF_GROUPS.map((g) => `${GROUP_TITLES[g]} ${d.counts[g]}`).join(", ")}${d.unpaired ? `; ${d.unpaired} without a partner left out` : ""}.`,
      head: ["system", "tier", "case", "failure", "target", "outcome", "A", "B"],
      numeric: [false, false, true, false, false, false, false, false],
      rows: d.rows.map((x) => [
        x.env,
        x.tier,
        String(x.index),
        x.failure,
        x.target,
        GROUP_TITLES[x.group],
        diffOutcome(x.a),
        diffOutcome(x.b),
      ]),
    });
  }
  tables.push({
    id: "codes",
    title: "Reason codes",
    note: "Derived from what each case recorded (the executor's task results, the verifiers' verdicts, the harness's errors), never from the model's own words.",
    head: ["code", "meaning"],
    numeric: [false, false],
    rows: codeRows(),
  });
  return tables;
}
