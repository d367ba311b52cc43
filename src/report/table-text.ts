// One table of the report as plain rows of text, and the texts of its cells (rates, intervals,
// counts, dollars), shared by every table and chart so that they print a number alike.

import { pct } from "../runlog/figures.js";
import type { Interval } from "../runlog/wilson.js";

export interface Table {
  id: string;
  title: string;
  /** One sentence on how to read the table. */
  note: string;
  head: string[];
  /** Columns holding numbers (right-aligned). */
  numeric: boolean[];
  rows: string[][];
}

export const rateText = (successes: number, n: number, rate: number | null) =>
  n ? `${pct(rate)} (${successes}/${n})` : "-";
export const intervalText = (i: Interval | null) => (i ? `${pct(i.low)} – ${pct(i.high)}` : "-");
export const num = (x: number | null, digits?: number) =>
  x === null ? "-" : digits === undefined ? String(x) : x.toFixed(digits);
export const int = (x: number) => x.toLocaleString("en-US");
export const usd = (x: number | null | undefined) =>
  x === null || x === undefined ? "-" : `$${x < 0.01 ? x.toFixed(4) : x.toFixed(2)}`;

export const table = (t: Omit<Table, "numeric">, numericFrom: number): Table => ({
  ...t,
  numeric: t.head.map((_, i) => i >= numericFrom),
});

/**
 * The first columns of a row per model × method × tier: the report level beside them when the
 * report holds several (its rows then differ by it); one level is named in the report's opening.
 */
export function keyColumns(levels: string[]) {
  const withLevel = levels.length > 1;
  return {
    head: ["model", "method", "tier", ...(withLevel ? ["level"] : [])],
    cells: (x: { model: string; method: string; tier: string; level: string }) => [
      x.model,
      x.method,
      x.tier,
      ...(withLevel ? [x.level] : []),
    ],
  };
}
