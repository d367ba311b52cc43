// The reasons chart: for each model (then method, level and tier), one horizontal bar of the cases
// that did not succeed, stacked by reason code, as inline SVG with a legend of the codes present.
import type { Report } from "./aggregate.js";
import { codeColour, describeCode } from "./reason-table.js";
import { esc, niceTicks, svgDoc } from "./svg.js";

const WIDTH = 960;
const ROW = 26;
/** The widest glyph average of the row labels' 12px sans-serif, in px: a label never reaches the left edge. */
const LABEL_CHAR_W = 7.2;
/** The plot keeps this width however long the labels are; the chart grows instead. */
const MIN_PLOT_W = 660;

/** A row's label: model / method · tier, and · level when the report holds several. */
export const rowLabel = (
  x: { model: string; method: string; tier: string; level: string },
  levels: string[] = [x.level],
) => `${x.model} / ${x.method} · ${x.tier}${levels.length > 1 ? ` · ${x.level}` : ""}`;

/** The label column, sized to the longest label (and never narrower than before). */
export const labelWidth = (labels: string[]) =>
  Math.max(260, Math.ceil(LABEL_CHAR_W * Math.max(0, ...labels.map((l) => l.length))) + 24);

function codeLegend(codes: string[], x: number, y: number, width: number) {
  const itemW = 40 + 7 * Math.max(0, ...codes.map((c) => c.length));
  const perRow = Math.max(1, Math.floor(width / itemW));
  const items = codes.map((code, i) => {
    const ix = x + (i % perRow) * itemW;
    const iy = y + Math.floor(i / perRow) * 22;
    return `<g class="legend-item"><rect x="${ix}" y="${iy}" width="14" height="14" rx="2" fill="${codeColour(code)}"><title>${esc(describeCode(code))}</title></rect><text x="${ix + 20}" y="${iy + 11}">${esc(code)}</text></g>`;
  });
  return {
    svg: `<g class="legend" aria-label="Legend">${items.join("")}</g>`,
    height: Math.ceil(codes.length / perRow) * 22,
  };
}

export function reasonsChart(r: Pick<Report, "reasons" | "reasonCodes" | "levels">): string {
  const rows = r.reasons
    .map((x) => ({ ...x, total: Object.values(x.counts).reduce((a, b) => a + b, 0) }))
    .filter((x) => x.total > 0);
  const labelW = labelWidth(rows.map((x) => rowLabel(x, r.levels)));
  const width = Math.max(WIDTH, labelW + MIN_PLOT_W + 40);
  const top = 70;
  const plotW = width - labelW - 40;
  // counts of cases: at least 5 on the axis, so the ticks are whole numbers
  const ticks = niceTicks(Math.max(5, ...rows.map((x) => x.total)));
  const max = ticks[ticks.length - 1];
  const xOf = (n: number) => labelW + (plotW * n) / max;
  // a gap between models, so the bars read as one group per model
  let y = top;
  let model = "";
  const out: string[] = [];
  const placed = rows.map((x) => {
    if (model && x.model !== model) y += 14;
    model = x.model;
    const at = y;
    y += ROW;
    return { x, at };
  });
  const plotH = y - top;
  for (const t of ticks) {
    out.push(`<line class="grid" x1="${xOf(t)}" x2="${xOf(t)}" y1="${top}" y2="${top + plotH}"/>`);
    out.push(`<text class="tick" x="${xOf(t)}" y="${top + plotH + 18}" text-anchor="middle">${t}</text>`);
  }
  for (const { x, at } of placed) {
    const label = rowLabel(x, r.levels);
    out.push(
      `<text class="tick bar-label" x="${labelW - 8}" y="${at + ROW / 2 + 4}" text-anchor="end">${esc(label)}</text>`,
    );
    let from = 0;
    for (const code of r.reasonCodes) {
      const n = x.counts[code] ?? 0;
      if (!n) continue;
      const tip = `${label}: ${code} ${n} of ${x.total} (${describeCode(code)})`;
      out.push(
        `<rect class="reason-seg" data-code="${esc(code)}" x="${xOf(from)}" y="${at + 3}" width="${xOf(from + n) - xOf(from)}" height="${ROW - 6}" fill="${codeColour(code)}" stroke="#fff" stroke-width="1"><title>${esc(tip)}</title></rect>`,
      );
      from += n;
    }
    out.push(`<text class="value" x="${xOf(from) + 6}" y="${at + ROW / 2 + 4}">${x.total}</text>`);
  }
  out.push(`<line class="axis" x1="${labelW}" x2="${labelW}" y1="${top}" y2="${top + plotH}"/>`);
  out.push(
    `<text class="axis-title" x="${labelW + plotW / 2}" y="${top + plotH + 40}" text-anchor="middle">Cases that did not succeed</text>`,
  );
  out.push(
    `<text class="subtitle" x="16" y="46">One bar per model, method and tier; segments: the reason each case ended as it did.</text>`,
  );
  if (!rows.length) out.push(`<text class="na" x="${labelW}" y="${top + 14}">every case succeeded</text>`);
  const lg = codeLegend(r.reasonCodes, labelW, top + plotH + 56, plotW);
  out.push(lg.svg);
  const desc = `Stacked bar chart. ${rows
    .map(
      (x) =>
        `${x.model} / ${x.method}, ${x.tier}: ${Object.entries(x.counts)
          .map(([c, n]) => `${c} ${n}`)
          .join(", ")}`,
    )
    .join("; ")}.`;
  return svgDoc(
    "chart-reasons",
    width,
    top + Math.max(plotH, 20) + 56 + lg.height + 12,
    "Why cases did not succeed, per model",
    desc,
    out.join(""),
  );
}
