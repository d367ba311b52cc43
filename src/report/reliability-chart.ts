// The reliability chart: for each model × method × tier with repeated trials, three bars —
// pass@1, pass@k, pass^k — with their 95% intervals as whiskers. Bars are coloured by measure (a
// light-to-dark ramp from the most to the least forgiving), groups named by tier, and the groups
// of one model and method spanned by its label, as the success chart names tiers.

import { pct } from "../runlog/figures.js";
import type { PassK } from "../runlog/passk.js";
import type { Report } from "./aggregate.js";
import { seriesLabeller } from "./runs.js";
import { esc, type Frame, percentAxis, svgDoc, whisker, yOf } from "./svg.js";

const WIDTH = 960;

/** pass@1, pass@k, pass^k: blues from ColorBrewer's sequential ramp, told apart in grey too. */
export const MEASURE_COLOURS = ["#4292C6", "#9ECAE1", "#08519C"] as const;

const measures = (p: PassK) =>
  [
    { name: "pass@1", v: p.passAt1, ci: p.intervals.passAt1 },
    { name: `pass@${p.k}`, v: p.passAtK, ci: p.intervals.passAtK },
    { name: `pass^${p.k}`, v: p.passHatK, ci: p.intervals.passHatK },
  ] as const;

export function reliabilityChart(r: Report): string {
  const rows = r.reliability?.byTier ?? [];
  if (!rows.length) return "";
  const seriesLabel = seriesLabeller(r.levels);
  const f: Frame = { left: 72, top: 80, width: WIDTH - 72 - 24, height: 300 };
  // groups no wider than 220 px, centred: one or two groups should not fill the page
  const groupW = Math.min(220, f.width / rows.length);
  const x0 = f.left + (f.width - groupW * rows.length) / 2;
  const barW = (groupW * 0.78) / 3;
  const out = [percentAxis(f, "Share of cases")];
  const base = f.top + f.height;
  rows.forEach((row, g) => {
    const gx = x0 + g * groupW;
    out.push(
      `<text class="tick tier" x="${gx + groupW / 2}" y="${base + 20}" text-anchor="middle">${esc(row.tier)}</text>`,
    );
    if (!row.passK) {
      out.push(`<text class="na" x="${gx + groupW / 2}" y="${base - 6}" text-anchor="middle">n/a</text>`);
      return;
    }
    measures(row.passK).forEach((m, i) => {
      const x = gx + groupW * 0.11 + i * barW + barW * 0.06;
      const w = barW * 0.88;
      const cx = x + w / 2;
      const h = Math.max(2, base - yOf(f, m.v));
      const tip = `${seriesLabel(row)}, ${row.tier}: ${m.name} ${pct(m.v)}, 95% interval ${pct(m.ci[0])} – ${pct(m.ci[1])} (${row.passK!.cases} cases, k = ${row.k})`;
      out.push(
        `<rect class="bar rel-bar" data-measure="${esc(m.name)}" x="${x}" y="${base - h}" width="${w}" height="${h}" fill="${MEASURE_COLOURS[i]}"><title>${esc(tip)}</title></rect>`,
      );
      out.push(whisker(f, cx, m.ci[0], m.ci[1], Math.min(6, w / 4)));
      if (w >= 26)
        out.push(
          `<text class="value" x="${cx}" y="${yOf(f, m.ci[1]) - 6}" text-anchor="middle">${Math.round(m.v * 100)}%</text>`,
        );
    });
  });
  // one label under the groups of each model and method, with a rule marking their span
  let g = 0;
  while (g < rows.length) {
    let end = g;
    while (end + 1 < rows.length && seriesLabel(rows[end + 1]) === seriesLabel(rows[g])) end++;
    const a = x0 + g * groupW + 6;
    const b = x0 + (end + 1) * groupW - 6;
    const label = seriesLabel(rows[g]);
    // a label wider than its span goes on two lines: model, then method
    const lines = label.length * 7 > b - a ? [rows[g].model, rows[g].method] : [label];
    out.push(`<line class="axis" x1="${a}" x2="${b}" y1="${base + 30}" y2="${base + 30}"/>`);
    for (const [i, l] of lines.entries())
      out.push(
        `<text class="point-label" x="${(a + b) / 2}" y="${base + 48 + i * 16}" text-anchor="middle">${esc(l)}</text>`,
      );
    g = end + 1;
  }
  const ks = [...new Set(rows.map((x) => x.k))];
  const k = ks.length === 1 ? String(ks[0]) : "k";
  const names = ["pass@1 (mean per trial)", `pass@${k} (at least one of ${k})`, `pass^${k} (all ${k})`];
  const ly = base + 90;
  const items = names.map((n, i) => {
    const ix = f.left + i * 250;
    return `<g class="legend-item"><rect x="${ix}" y="${ly}" width="14" height="14" rx="2" fill="${MEASURE_COLOURS[i]}"/><text x="${ix + 20}" y="${ly + 11}">${esc(n)}</text></g>`;
  });
  out.push(`<g class="legend" aria-label="Legend">${items.join("")}</g>`);
  out.push(
    `<text class="subtitle" x="16" y="46">${esc(`Each case run ${k} times. Bars: share of cases; whiskers: 95% Wilson interval over cases.`)}</text>`,
  );
  const desc = `Grouped bar chart. ${rows
    .map(
      (x) =>
        `${seriesLabel(x)}, ${x.tier}: ${
          x.passK
            ? measures(x.passK)
                .map((m) => `${m.name} ${pct(m.v)}`)
                .join(", ")
            : "n/a"
        }`,
    )
    .join("; ")}.`;
  return svgDoc(
    "chart-reliability",
    WIDTH,
    ly + 28,
    "Reliability over repeated trials: pass@1, pass@k and pass^k",
    desc,
    out.join(""),
  );
}
