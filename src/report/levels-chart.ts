// The HTML report's success-by-report-level chart (issue 23): one group per level (full, service,
// symptom) with a bar per model × method, its 95% Wilson interval as whiskers, and beside each
// bar a thin one for the share of cases localized (the agent changed the fault's objects and no
// other service's workload). Drawn only when the runs recorded their level.
import { isEvaluated } from "../outcome.js";
import { wilson } from "../runlog/wilson.js";
import type { Report } from "./aggregate.js";
import { seriesLabel } from "./runs.js";
import { colour, esc, type Frame, legend, percentAxis, svgDoc, whisker, yOf } from "./svg.js";
import { intervalText, pct } from "./table-text.js";

const WIDTH = 960;
const LEVELS = ["full", "service", "symptom"];

export function successByLevelChart(r: Report): string {
  const outcomes = r.runs.flatMap((run) =>
    run.outcomes.map((o) => ({ ...o, model: run.model, method: run.method })),
  );
  if (!outcomes.some((o) => o.report)) return "";
  const levels = LEVELS.filter((l) => outcomes.some((o) => (o.report ?? "full") === l));
  const labels = r.series.map(seriesLabel);
  const f: Frame = { left: 72, top: 80, width: WIDTH - 72 - 24, height: 300 };
  const lg = legend(labels, f.left, f.top + f.height + 58, f.width);
  const groupW = f.width / Math.max(1, levels.length);
  const barW = Math.min(90, (groupW * 0.8) / Math.max(1, r.series.length));
  const inset = (groupW - barW * r.series.length) / 2;
  const out = [percentAxis(f, "Success rate")];
  const desc: string[] = [];
  levels.forEach((level, l) => {
    const gx = f.left + l * groupW;
    out.push(
      `<text class="tick tier" x="${gx + groupW / 2}" y="${f.top + f.height + 22}" text-anchor="middle">${esc(level)}</text>`,
    );
    r.series.forEach((s, i) => {
      const cases = outcomes.filter(
        (o) =>
          o.model === s.model &&
          o.method === s.method &&
          (o.report ?? "full") === level &&
          isEvaluated(o.status),
      );
      const x = gx + inset + i * barW + barW * 0.075;
      const w = barW * 0.85;
      if (!cases.length) {
        out.push(
          `<text class="na" x="${x + w / 2}" y="${f.top + f.height - 6}" text-anchor="middle">n/a</text>`,
        );
        return;
      }
      const n = cases.length;
      const ok = cases.filter((o) => o.status === "success").length;
      const loc = cases.filter((o) => o.localized).length;
      const rate = ok / n;
      const interval = wilson(ok, n);
      const tip = `${labels[i]}, ${level}: ${pct(rate)} (${ok}/${n}), 95% interval ${intervalText(interval)}; localized ${pct(loc / n)} (${loc}/${n})`;
      desc.push(tip);
      const h = Math.max(2, f.top + f.height - yOf(f, rate));
      out.push(
        `<rect class="bar" x="${x}" y="${f.top + f.height - h}" width="${w * 0.75}" height="${h}" fill="${colour(i)}"><title>${esc(tip)}</title></rect>`,
      );
      const lh = Math.max(2, f.top + f.height - yOf(f, loc / n));
      out.push(
        `<rect class="bar localized" x="${x + w * 0.78}" y="${f.top + f.height - lh}" width="${w * 0.22}" height="${lh}" fill="${colour(i)}" fill-opacity="0.45"><title>${esc(`localized ${pct(loc / n)} (${loc}/${n})`)}</title></rect>`,
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
