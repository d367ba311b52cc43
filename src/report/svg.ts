// Small helpers for the hand-written SVG charts: escaping, round tick values, the y axis in
// percent, and a wrapped legend. Plain strings, so the HTML needs no script and no library.

/** For text and attribute values alike. */
export const esc = (s: string) =>
  s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");

/** Okabe–Ito: told apart by people with the common colour-vision deficiencies; yellow last (faint on white). */
export const PALETTE = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#CC79A7",
  "#56B4E9",
  "#000000",
  "#F0E442",
];
export const colour = (i: number) => PALETTE[i % PALETTE.length];

/** 0 and round steps (1, 2, 2.5, 5 × 10^k) up to at least `max`, about five of them. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const top = Math.ceil(max / step - 1e-9) * step;
  const out: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

export interface Frame {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** y from a rate in [0, 1]. */
export const yOf = (f: Frame, rate: number) => f.top + f.height * (1 - rate);

/** Grid lines and labels every 20% and the rotated axis title. */
export function percentAxis(f: Frame, title: string): string {
  const out: string[] = [];
  for (let p = 0; p <= 100; p += 20) {
    const y = yOf(f, p / 100);
    out.push(`<line class="grid" x1="${f.left}" x2="${f.left + f.width}" y1="${y}" y2="${y}"/>`);
    out.push(`<text class="tick" x="${f.left - 8}" y="${y + 4}" text-anchor="end">${p}%</text>`);
  }
  const cy = f.top + f.height / 2;
  out.push(
    `<text class="axis-title" transform="translate(${f.left - 48} ${cy}) rotate(-90)" text-anchor="middle">${esc(title)}</text>`,
  );
  out.push(`<line class="axis" x1="${f.left}" x2="${f.left}" y1="${f.top}" y2="${f.top + f.height}"/>`);
  out.push(
    `<line class="axis" x1="${f.left}" x2="${f.left + f.width}" y1="${f.top + f.height}" y2="${f.top + f.height}"/>`,
  );
  return out.join("");
}

/** Vertical whisker with caps from low to high (rates), centred on x. */
export function whisker(f: Frame, x: number, low: number, high: number, cap: number): string {
  const y1 = yOf(f, low);
  const y2 = yOf(f, high);
  return `<g class="whisker"><line x1="${x}" x2="${x}" y1="${y1}" y2="${y2}"/><line x1="${x - cap}" x2="${x + cap}" y1="${y1}" y2="${y1}"/><line x1="${x - cap}" x2="${x + cap}" y1="${y2}" y2="${y2}"/></g>`;
}

/** Rows of swatch + label from (x, y); its height, so the chart can grow to fit it. */
export function legend(
  labels: string[],
  x: number,
  y: number,
  width: number,
): { svg: string; height: number } {
  // items as wide as the longest label (about 7 px a character at 13 px), as many a row as fit
  const ITEM_WIDTH = 40 + 7 * Math.max(0, ...labels.map((l) => l.length));
  const perRow = Math.max(1, Math.floor(width / ITEM_WIDTH));
  const items = labels.map((label, i) => {
    const ix = x + (i % perRow) * ITEM_WIDTH;
    const iy = y + Math.floor(i / perRow) * 22;
    return `<g class="legend-item"><rect x="${ix}" y="${iy}" width="14" height="14" rx="2" fill="${colour(i)}"/><text x="${ix + 20}" y="${iy + 11}">${esc(label)}</text></g>`;
  });
  return {
    svg: `<g class="legend" aria-label="Legend">${items.join("")}</g>`,
    height: Math.ceil(labels.length / perRow) * 22,
  };
}

/** An accessible chart: role img, labelled by its title and described by its summary. */
export function svgDoc(
  id: string,
  width: number,
  height: number,
  title: string,
  desc: string,
  body: string,
): string {
  return `<svg id="${id}" class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg"><title id="${id}-title">${esc(title)}</title><desc id="${id}-desc">${esc(desc)}</desc><text class="chart-title" x="16" y="26">${esc(title)}</text>${body}</svg>`;
}
