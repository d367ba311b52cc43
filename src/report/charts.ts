// The HTML report's two charts, as inline SVG: success by tier (bars per model × method, 95%
// Wilson interval as whiskers) and cost against success (one labelled point per model × method).

import { pct } from "../runlog/figures.js";
import type { Report } from "./aggregate.js";
import { seriesLabeller } from "./runs.js";
import { colour, esc, type Frame, legend, niceTicks, percentAxis, svgDoc, whisker, yOf } from "./svg.js";
import { intervalText } from "./table-text.js";

const WIDTH = 960;

export function successByTierChart(r: Report): string {
  const label = seriesLabeller(r.levels);
  const labels = r.series.map(label);
  // room above the plot for the value label of a 100% bar, below the subtitle
  const f: Frame = { left: 72, top: 80, width: WIDTH - 72 - 24, height: 300 };
  const lg = legend(labels, f.left, f.top + f.height + 58, f.width);
  const height = f.top + f.height + 58 + lg.height + 8;
  const groupW = f.width / Math.max(1, r.tiers.length);
  // bars no wider than 90 px: with one or two series a full-width slab reads as a block, not a bar
  const barW = Math.min(90, (groupW * 0.8) / Math.max(1, r.series.length));
  const inset = (groupW - barW * r.series.length) / 2;
  const out = [percentAxis(f, "Success rate")];
  r.tiers.forEach((tier, t) => {
    const gx = f.left + t * groupW;
    out.push(
      `<text class="tick tier" x="${gx + groupW / 2}" y="${f.top + f.height + 22}" text-anchor="middle">${esc(tier)}</text>`,
    );
    r.series.forEach((s, i) => {
      const cell = r.byTier.find(
        (c) => c.model === s.model && c.method === s.method && c.level === s.level && c.tier === tier,
      );
      const x = gx + inset + i * barW + barW * 0.075;
      const w = barW * 0.85;
      const cx = x + w / 2;
      if (!cell || cell.successRate === null || !cell.interval) {
        // a tier this model and method never ran (or only saw injection failures): say so, draw no bar
        out.push(`<text class="na" x="${cx}" y="${f.top + f.height - 6}" text-anchor="middle">n/a</text>`);
        return;
      }
      const y = yOf(f, cell.successRate);
      const tip = `${labels[i]}, ${tier}: ${pct(cell.successRate)} (${cell.successes}/${cell.evaluated}), 95% interval ${intervalText(cell.interval)}`;
      // a 0% bar has no height: a coloured stub still shows which series it is
      const h = Math.max(2, f.top + f.height - y);
      out.push(
        `<rect class="bar" x="${x}" y="${f.top + f.height - h}" width="${w}" height="${h}" fill="${colour(i)}"><title>${esc(tip)}</title></rect>`,
      );
      out.push(whisker(f, cx, cell.interval.low, cell.interval.high, Math.min(8, w / 4)));
      // a value label only where the bars are wide enough to hold one without overlapping
      if (w >= 30)
        out.push(
          `<text class="value" x="${cx}" y="${yOf(f, cell.interval.high) - 6}" text-anchor="middle">${pct(cell.successRate)}</text>`,
        );
    });
  });
  out.push(
    `<text class="axis-title" x="${f.left + f.width / 2}" y="${f.top + f.height + 44}" text-anchor="middle">Tier</text>`,
  );
  out.push(
    `<text class="subtitle" x="16" y="46">Bars: success rate over evaluated cases. Whiskers: 95% Wilson interval.</text>`,
  );
  out.push(lg.svg);
  return svgDoc(
    "chart-success",
    WIDTH,
    height,
    "Success rate by tier, per model and method",
    `Grouped bar chart. ${r.byTier.map((c) => `${label(c)}, ${c.tier}: ${pct(c.successRate)}`).join("; ")}.`,
    out.join(""),
  );
}

interface Box {
  x: number;
  y: number;
  w: number;
}

/** Nudges a label down (then up) until it clears the ones already placed. */
function placeLabel(placed: Box[], x: number, y: number, w: number): number {
  const clash = (yy: number) => placed.some((b) => Math.abs(b.y - yy) < 13 && x < b.x + b.w && b.x < x + w);
  for (const dy of [0, 14, -14, 28, -28, 42, -42]) {
    if (!clash(y + dy)) {
      placed.push({ x, y: y + dy, w });
      return y + dy;
    }
  }
  placed.push({ x, y, w });
  return y;
}

export function costSuccessChart(r: Report): string {
  const seriesLabel = seriesLabeller(r.levels);
  const pts = r.bySeries.map((s, i) => ({ s, i })).filter(({ s }) => s.successRate !== null && s.interval);
  // cost when every point has one; otherwise tokens for all, so the points stay comparable
  const byCost = pts.length > 0 && pts.every(({ s }) => s.cost?.perCase != null);
  const xVal = ({ s }: (typeof pts)[number]) => (byCost ? s.cost!.perCase! : (s.tokens.perCase ?? 0));
  const xTitle = byCost ? "Cost per evaluated case (USD)" : "Tokens per evaluated case (input + output)";
  const fmt = (v: number) =>
    byCost ? `$${Number(v.toPrecision(3))}` : v >= 1000 ? `${Number((v / 1000).toPrecision(3))}k` : String(v);
  const f: Frame = { left: 72, top: 70, width: WIDTH - 72 - 40, height: 320 };
  const ticks = niceTicks(Math.max(0, ...pts.map(xVal)));
  const top = ticks[ticks.length - 1];
  const xOf = (v: number) => f.left + (f.width * v) / top;
  const out = [percentAxis(f, "Success rate")];
  for (const t of ticks) {
    out.push(`<line class="grid" x1="${xOf(t)}" x2="${xOf(t)}" y1="${f.top}" y2="${f.top + f.height}"/>`);
    out.push(
      `<text class="tick" x="${xOf(t)}" y="${f.top + f.height + 20}" text-anchor="middle">${fmt(t)}</text>`,
    );
  }
  out.push(
    `<text class="axis-title" x="${f.left + f.width / 2}" y="${f.top + f.height + 44}" text-anchor="middle">${esc(xTitle)}</text>`,
  );
  const subtitle = byCost
    ? "One point per model and method, all tiers pooled; whiskers: 95% Wilson interval."
    : "No prices for some models, so tokens stand in for cost. One point per model and method, all tiers pooled.";
  out.push(`<text class="subtitle" x="16" y="46">${esc(subtitle)}</text>`);
  const placed: Box[] = [];
  // top to bottom, so nudged labels move away from the ones above them
  for (const p of [...pts].sort((a, b) => b.s.successRate! - a.s.successRate!)) {
    const { s, i } = p;
    const x = xOf(xVal(p));
    const y = yOf(f, s.successRate!);
    const label = seriesLabel(s);
    const w = label.length * 7;
    const right = x + 10 + w < f.left + f.width;
    const lx = right ? x + 10 : x - 10 - w;
    const ly = placeLabel(placed, lx, y + 4, w);
    const tip = `${label}: ${pct(s.successRate)} (${s.successes}/${s.evaluated}), ${fmt(xVal(p))} per case`;
    out.push(whisker(f, x, s.interval!.low, s.interval!.high, 5));
    out.push(
      `<circle class="point" cx="${x}" cy="${y}" r="7" fill="${colour(i)}"><title>${esc(tip)}</title></circle>`,
    );
    out.push(
      `<text class="point-label" x="${right ? lx : lx + w}" y="${ly}" text-anchor="${right ? "start" : "end"}">${esc(label)}</text>`,
    );
  }
  const height = f.top + f.height + 60;
  const desc = `Scatter plot. ${pts.map((p) => `${seriesLabel(p.s)}: ${pct(p.s.successRate)} at ${fmt(xVal(p))}`).join("; ")}.`;
  return svgDoc(
    "chart-cost",
    WIDTH,
    height,
    byCost ? "Cost against success" : "Tokens against success",
    desc,
    out.join(""),
  );
}
