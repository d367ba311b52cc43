// The tables of reliability over repeated trials (report/reliability.ts): one row per model ×
// method × tier, and one per failure type × model × method. Columns are named pass@3 and pass^3
// when every row has the same k, pass@k and pass^k (with a k column) otherwise.

import { pct } from "../runlog/figures.js";
import type { PassK } from "../runlog/passk.js";
import type { Report } from "./aggregate.js";
import { type Series, seriesLabeller } from "./runs.js";
import { keyColumns, type Table } from "./table-text.js";

const measure = (v: number, [lo, hi]: [number, number]) => `${pct(v)} (${pct(lo)} – ${pct(hi)})`;

function cells(p: PassK | null): string[] {
  if (!p) return ["0", "-", "-", "-"];
  return [
    String(p.cases),
    measure(p.passAt1, p.intervals.passAt1),
    measure(p.passAtK, p.intervals.passAtK),
    measure(p.passHatK, p.intervals.passHatK),
  ];
}

const NOTE =
  "Each case ran k times. pass@1: the mean success rate per trial; pass@k: the chance that at least one of k trials succeeds (unbiased estimator); pass^k: the chance that all k succeed. 95% Wilson intervals over cases in parentheses. Cases count when k of their trials were evaluated (injection failures and errors of the run are left out).";

export function reliabilityTables(r: Report): Table[] {
  const rel = r.reliability;
  if (!rel) return [];
  const ks = new Set(rel.byTier.map((x) => x.k));
  const k = ks.size === 1 ? String([...ks][0]) : "k";
  const head = ["cases", "pass@1 (95% interval)", `pass@${k} (95% interval)`, `pass^${k} (95% interval)`];
  const numeric = (from: number, n: number) => Array.from({ length: n }, (_, i) => i >= from);
  const kOf = (s: Series) =>
    rel.byTier.find((x) => x.model === s.model && x.method === s.method && x.level === s.level)?.k ?? 1;
  const key = keyColumns(r.levels);
  const label = seriesLabeller(r.levels);
  const byTier: Table = {
    id: "reliability",
    title: "Reliability over repeated trials by model, method and tier",
    note: NOTE,
    head: [...key.head, "k", ...head],
    numeric: numeric(key.head.length, key.head.length + 5),
    rows: rel.byTier.map((x) => [...key.cells(x), String(x.k), ...cells(x.passK)]),
  };
  const perFailure: Table = {
    id: "reliability-failures",
    title: "Reliability over repeated trials by failure type",
    note: "All tiers and systems pooled per model and method, report levels never.",
    head: ["failure type", "model / method", "k", ...head],
    numeric: numeric(2, 7),
    rows: rel.perFailure.flatMap((f) =>
      f.cells.flatMap((c, i) =>
        c ? [[f.failure, label(r.series[i]), String(kOf(r.series[i])), ...cells(c)]] : [],
      ),
    ),
  };
  return [byTier, perFailure];
}
