// The leaderboard as an HTML table the reader sorts by clicking a column's header: a small
// inline script (no external script, no request), so the page stays one self-contained file.
// Each cell carries its sort value in data-v; empty cells sort last either way. Model ids wrap
// instead of being cut, however long.

import { pct } from "../runlog/figures.js";
import type { LeaderboardRow } from "./leaderboard.js";
import { esc } from "./svg.js";

export const LEADERBOARD_CSS = `
table.sortable th button { all: unset; cursor: pointer; }
table.sortable th button:focus-visible { outline: 2px solid #0969da; }
table.sortable th[aria-sort="ascending"] button::after { content: " \\25B2"; }
table.sortable th[aria-sort="descending"] button::after { content: " \\25BC"; }
table.sortable td.id { white-space: normal; overflow-wrap: anywhere; min-width: 9em; }
`;

/** Sorts a table.sortable by the clicked column: its first order first (data-first), then the other. */
const SCRIPT = `
for (const table of document.querySelectorAll("table.sortable")) {
  const heads = [...table.tHead.rows[0].cells];
  heads.forEach((th, col) => th.querySelector("button").addEventListener("click", () => {
    const now = th.getAttribute("aria-sort");
    const dir = now ? (now === "ascending" ? "descending" : "ascending") : th.dataset.first;
    const sign = dir === "ascending" ? 1 : -1;
    const numeric = th.classList.contains("num");
    const value = (tr) => tr.cells[col].dataset.v ?? "";
    const body = table.tBodies[0];
    const rows = [...body.rows].sort((a, b) => {
      const x = value(a), y = value(b);
      if (x === "" || y === "") return (x === "") - (y === "");
      return sign * (numeric ? Number(x) - Number(y) : x.localeCompare(y));
    });
    for (const h of heads) h.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", dir);
    body.append(...rows);
  }));
}
`;

interface Column {
  head: string;
  numeric: boolean;
  first: "ascending" | "descending";
  cell: (r: LeaderboardRow) => { text: string; v: string | number | null };
}

const text = (s: string) => ({ text: s, v: s });
const BASE_COLUMNS: Column[] = [
  { head: "Model", numeric: false, first: "ascending", cell: (r) => text(r.model) },
  { head: "Method", numeric: false, first: "ascending", cell: (r) => text(r.method) },
  { head: "Tier", numeric: false, first: "ascending", cell: (r) => text(r.tier) },
  { head: "Report level", numeric: false, first: "ascending", cell: (r) => text(r.level) },
  {
    head: "Success",
    numeric: true,
    first: "descending",
    cell: (r) =>
      r.successRate === null
        ? { text: "–", v: null }
        : { text: `${pct(r.successRate)} (${r.successes}/${r.evaluated})`, v: r.successRate },
  },
  {
    head: "95% interval",
    numeric: true,
    first: "descending",
    cell: (r) =>
      r.interval
        ? { text: `${pct(r.interval.low)} – ${pct(r.interval.high)}`, v: r.interval.low }
        : { text: "–", v: null },
  },
  {
    head: "pass@k",
    numeric: true,
    first: "descending",
    cell: (r) =>
      r.passK
        ? {
            text: `pass@${r.passK.k} ${pct(r.passK.passAtK)} (${pct(r.passK.intervals.passAtK[0])} – ${pct(r.passK.intervals.passAtK[1])})`,
            v: r.passK.passAtK,
          }
        : { text: "–", v: null },
  },
  {
    head: "Cost / success",
    numeric: true,
    first: "ascending",
    cell: (r) =>
      r.costPerSuccess === null
        ? { text: "–", v: null }
        : { text: `$${r.costPerSuccess.toFixed(4)}`, v: r.costPerSuccess },
  },
  {
    head: "Time / success",
    numeric: true,
    first: "ascending",
    cell: (r) =>
      r.secondsPerSuccess === null
        ? { text: "–", v: null }
        : { text: `${r.secondsPerSuccess.toFixed(1)} s`, v: r.secondsPerSuccess },
  },
];

/** Shown where a row holds incidents: the cases whose stated diagnosis named every cause. */
const ALL_CAUSES: Column = {
  head: "All causes found",
  numeric: true,
  first: "descending",
  cell: (r) =>
    r.allCausesFound === null ? { text: "–", v: null } : { text: pct(r.allCausesFound), v: r.allCausesFound },
};

export function leaderboardHtml(rows: LeaderboardRow[]): string {
  if (!rows.length) return "";
  const COLUMNS = rows.some((r) => r.allCausesFound !== null) ? [...BASE_COLUMNS, ALL_CAUSES] : BASE_COLUMNS;
  const cls = (c: Column, i: number) => (c.numeric ? "num" : i === 0 ? "id" : "");
  const head = COLUMNS.map(
    (c, i) =>
      `<th scope="col"${cls(c, i) ? ` class="${cls(c, i)}"` : ""} data-first="${c.first}"><button type="button">${esc(c.head)}</button></th>`,
  ).join("");
  const body = rows
    .map(
      (r) =>
        `<tr>${COLUMNS.map((c, i) => {
          const v = c.cell(r);
          return `<td${cls(c, i) ? ` class="${cls(c, i)}"` : ""} data-v="${esc(String(v.v ?? ""))}">${esc(v.text)}</td>`;
        }).join("")}</tr>`,
    )
    .join("\n");
  const note =
    "One row per model, method, tier and report level (what the method was told; runs without a level told everything: full). " +
    "Success over evaluated cases with its 95% Wilson interval; pass@k where cases were run k times (--trials); cost and " +
    "remediation time are all the row's cases spent, per success; all causes found (incidents) is the share of cases whose stated diagnosis named every cause. Click a column's header to sort by it, again to reverse.";
  return `<section id="leaderboard"><h2>Leaderboard</h2><p class="note">${esc(note)}</p><div class="table-wrap"><table class="sortable"><caption class="sr-only">Leaderboard</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div></section>
<script>${SCRIPT}</script>`;
}
