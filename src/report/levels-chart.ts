// The HTML report's success-by-report-level chart: one group per level (full, service,
// symptom) with a bar per model × method, its 95% Wilson interval as whiskers, and beside each
// bar a thin one for the share of cases localized (the agent changed the fault's objects and no
// other service's workload). Tiers pooled, from the report's cells (aggregate.ts), so its numbers
// are the tables'. Drawn only when the runs recorded their level.

import { pct } from "../runlog/figures.js";
import type { Report } from "./aggregate.js";
import type { Series } from "./runs.js";
import { colour, esc, type Frame, legend, percentAxis, svgDoc, whisker, yOf } from "./svg.js";
import { intervalText } from "./table-text.js";

const WIDTH = 960;

export function successByLevelChart(r: Report): string {
  if (!r.runs.some((run) => run.outcomes.some((o) => o.report))) return "";
  const levels = r.levels; // most told first
  // a bar per model × method in each level's group: the series without their level
  const pairs = [...new Map(r.series.map((s) => [`${s.model}\u0000${s.method}`, s])).values()];
  const labels = pairs.map((s) => `${s.model} / ${s.method}`);
  const f: Frame = { left: 72, top: 80, width: WIDTH - 72 - 24, height: 300 };
  const lg = legend(labels, f.left, f.top + f.height + 58, f.width);
  const groupW = f.width / Math.max(1, levels.length);
  const barW = Math.min(90, (groupW * 0.8) / Math.max(1, pairs.length));
  const inset = (groupW - barW * pairs.length) / 2;
  const out = [percentAxis(f, "Success rate")];
  const desc: string[] = [];
  levels.forEach((level, l) => {
    const gx = f.left + l * groupW;
    out.push(
      `<text class="tick tier" x="${gx + groupW / 2}" y="${f.top + f.height + 22}" text-anchor="middle">${esc(level)}</text>`,
    );
    pairs.forEach((s, i) => {
      const mine = <T extends Series>(x: T) =>
        x.model === s.model && x.method === s.method && x.level === level;
      // all tiers pooled
      const cell = r.bySeries.find(mine);
      const rows = r.localization.filter(mine);
      const loc = rows.reduce((a, x) => a + x.localized.count, 0);
      // cases recorded before localization was scored: no pale bar, rather than a false 0%
      const scored = rows.some((x) => x.scored > 0);
      const x = gx + inset + i * barW + barW * 0.075;
      const w = barW * 0.85;
      if (!cell?.evaluated || cell.successRate === null) {
        out.push(
          `<text class="na" x="${x + w / 2}" y="${f.top + f.height - 6}" text-anchor="middle">n/a</text>`,
        );
        return;
      }
      const { successes: ok, evaluated: n, interval } = cell;
      const rate = ok / n;
      const located = scored ? `localized ${pct(loc / n)} (${loc}/${n})` : "localization not scored";
      const tip = `${labels[i]}, ${level}: ${pct(rate)} (${ok}/${n}), 95% interval ${intervalText(interval)}; ${located}`;
      desc.push(tip);
      const h = Math.max(2, f.top + f.height - yOf(f, rate));
      out.push(
        `<rect class="bar" x="${x}" y="${f.top + f.height - h}" width="${w * 0.75}" height="${h}" fill="${colour(i)}"><title>${esc(tip)}</title></rect>`,
      );
      const lh = Math.max(2, f.top + f.height - yOf(f, loc / n));
      if (scored)
        out.push(
          `<rect class="bar localized" x="${x + w * 0.78}" y="${f.top + f.height - lh}" width="${w * 0.22}" height="${lh}" fill="${colour(i)}" fill-opacity="0.45"><title>${esc(located)}</title></rect>`,
        );
      if (interval) out.push(whisker(f, x + (w * 0.75) / 2, interval.low, interval.high, Math.min(8, w / 5)));
    });
  });
  out.push(
    `<text class="axis-title" x="${f.left + f.width / 2}" y="${f.top + f.height + 44}" text-anchor="middle">Report level</text>`,
  );
  out.push(
    `<text class="subtitle" x="16" y="46">Bars: success rate, whiskers its 95% Wilson interval; the pale bar beside it: cases localized.</text>`,
  );
  out.push(lg.svg);
  return svgDoc(
    "chart-levels",
    WIDTH,
    f.top + f.height + 58 + lg.height + 8,
    "Success rate by report level, per model and method",
    `Grouped bar chart. ${desc.join("; ")}.`,
    out.join(""),
  );
}
