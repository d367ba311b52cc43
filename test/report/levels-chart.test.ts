// The HTML report's success-by-level chart (levels-chart.ts), over fixtures.ts's LEVEL_RUNS made
// into a page by the built CLI: a group per level, a bar per model × method with its 95% interval
// and a pale bar for the cases localized, the numbers those of the tables (tiers pooled), n/a
// where a model and method did not run a level, no pale bar where nothing was scored. Then the
// chart alone is drawn by headless Chromium with the report's style, and each bar's and
// whisker's height measured on the screenshot.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { PALETTE } from "../../src/report/svg.js";
import { CHROMIUM, chromium } from "./chromium.js";
import { writeLevelRuns } from "./fixtures.js";
import { readPng } from "./png.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
/** The plot's frame in levels-chart.ts: 300 px tall, its base at y = 380. */
const BASE = 380;
const HEIGHT = 300;

let svg: string;
let style: string;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "report-levels-chart-"));
  const file = join(dir, "report.html");
  const r = await execa("node", [CLI, "report", writeLevelRuns(), "--format", "html", "--out", file], {
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  const html = readFileSync(file, "utf8");
  const start = html.indexOf('<svg id="chart-levels"');
  expect(start, "the page has the levels chart").toBeGreaterThan(0);
  svg = html.slice(start, html.indexOf("</svg>", start) + "</svg>".length);
  style = html.slice(html.indexOf("<style>"), html.indexOf("</style>") + "</style>".length);
});

interface Bar {
  cls: string;
  x: number;
  y: number;
  width: number;
  height: number;
  fill: string;
  title: string;
}
const bars = (): Bar[] =>
  [
    ...svg.matchAll(
      /<rect class="(bar(?: localized)?)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="(#[0-9A-Fa-f]{6})"[^>]*><title>([^<]*)<\/title>/g,
    ),
  ].map((m) => ({
    cls: m[1],
    x: Number(m[2]),
    y: Number(m[3]),
    width: Number(m[4]),
    height: Number(m[5]),
    fill: m[6],
    title: m[7],
  }));

describe("the success-by-level chart", () => {
  it("groups the levels most told first, a bar per model × method, n/a where it did not run", () => {
    expect([...svg.matchAll(/<text class="tick tier"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])).toEqual([
      "full",
      "service",
      "symptom",
    ]);
    expect(
      [...svg.matchAll(/<g class="legend-item">.*?<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]),
    ).toEqual(["gpt-4o / SoloGen", "gpt-4o / ThinkRemed"]);
    // SoloGen ran full and symptom, ThinkRemed only service: three of six places are n/a
    expect(svg.match(/<text class="na"/g)).toHaveLength(3);
    expect(svg.match(/class="whisker"/g)).toHaveLength(3);
  });

  it("draws success with its interval and cases localized, tiers pooled, as the tables count them", () => {
    const success = bars().filter((b) => b.cls === "bar");
    expect(success.map((b) => [b.title, b.fill])).toEqual([
      [
        "gpt-4o / SoloGen, full: 100.0% (4/4), 95% interval 51.0% – 100.0%; localization not scored",
        PALETTE[0],
      ],
      [
        "gpt-4o / ThinkRemed, service: 100.0% (2/2), 95% interval 34.2% – 100.0%; localized 100.0% (2/2)",
        PALETTE[1],
      ],
      // easy 0/4 and hard 2/3 (its injection failure apart): 2/7, localized 2 + 1
      [
        "gpt-4o / SoloGen, symptom: 28.6% (2/7), 95% interval 8.2% – 64.1%; localized 42.9% (3/7)",
        PALETTE[0],
      ],
    ]);
    expect(success.map((b) => Math.round(b.height * 100) / 100)).toEqual([300, 300, 85.71]);
    for (const b of success) expect(b.y + b.height).toBeCloseTo(BASE, 6);
    // the pale bars: none for the run from before localization, 2/2 and 3/7 for the others
    const localized = bars().filter((b) => b.cls === "bar localized");
    expect(localized.map((b) => [b.title, Math.round(b.height * 100) / 100])).toEqual([
      ["localized 100.0% (2/2)", 300],
      ["localized 42.9% (3/7)", 128.57],
    ]);
    // whiskers span the intervals: 8.2% – 64.1% is y 355.3 to 187.7 on the symptom bar
    const whiskers = [
      ...svg.matchAll(/<g class="whisker"><line x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)" y2="([\d.]+)"/g),
    ];
    expect(
      whiskers.map((m) =>
        [Number(m[1]), Number(m[2])].map((y) => Math.round(((BASE - y) / HEIGHT) * 1000) / 10),
      ),
    ).toEqual([
      [51, 100],
      [34.2, 100],
      [8.2, 64.1],
    ]);
  });

  it.skipIf(!CHROMIUM)(
    "is drawn by Chromium with each bar as tall as its rate",
    { timeout: 120_000 },
    async () => {
      // the chart alone on a page with the report's style, at its own size: one px per unit of its viewBox
      const page = join(dir, "chart.html");
      writeFileSync(
        page,
        `<!doctype html><html><head>${style}</head><body style="margin:0">${svg.replace('class="chart"', 'class="chart" style="max-width:none"')}</body></html>`,
      );
      const png = join(dir, "chart.png");
      const r = await chromium([
        `--screenshot=${png}`,
        "--window-size=960,480",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
        pathToFileURL(page).href,
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      console.log(`screenshot of the success-by-level chart: ${png}`);
      const img = readPng(png);
      expect(img.width).toBe(960);
      /** Pixels in column x, over the plot, that satisfy `is`. */
      const column = (x: number, is: (r: number, g: number, b: number) => boolean) => {
        let n = 0;
        for (let y = BASE - HEIGHT - 10; y < BASE + 5; y++) {
          const i = (y * img.width + Math.round(x)) * 4;
          if (is(img.rgba[i], img.rgba[i + 1], img.rgba[i + 2])) n++;
        }
        return n;
      };
      const exactly = (hex: string) => {
        const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
        return (x: number, y: number, z: number) => x === r && y === g && z === b;
      };
      // the pale bars are their series' colour at 45% over white (or over a grid line): bluish or orange
      const pale = (r: number, _g: number, b: number) => r < 250 && Math.abs(r - b) > 40;
      const [full, service, symptom] = bars().filter((b) => b.cls === "bar");
      // a column left of the whisker's caps, inside each bar
      const inBar = (b: Bar) => b.x + 6;
      expect(column(inBar(full), exactly(PALETTE[0]))).toBe(300);
      expect(column(inBar(service), exactly(PALETTE[1]))).toBe(300);
      // 85.7 px: 85 whole pixels and an edge blended with the white above
      expect(column(inBar(symptom), exactly(PALETTE[0]))).toBeGreaterThanOrEqual(85);
      expect(column(inBar(symptom), exactly(PALETTE[0]))).toBeLessThanOrEqual(86);
      const [serviceLoc, symptomLoc] = bars().filter((b) => b.cls === "bar localized");
      expect(Math.abs(column(serviceLoc.x + serviceLoc.width / 2, pale) - 300)).toBeLessThanOrEqual(1);
      expect(Math.abs(column(symptomLoc.x + symptomLoc.width / 2, pale) - 128.6)).toBeLessThanOrEqual(1.5);
      // the whiskers, dark from the interval's low end to its high end: 51.0% – 100.0% is 147 px
      const dark = (r: number, g: number, b: number) => r < 90 && g < 90 && b < 90;
      const cx = (b: Bar) => b.x + b.width / 2;
      for (const [b, low, high] of [
        [full, 0.51, 1],
        [service, 0.342, 1],
        [symptom, 0.082, 0.641],
      ] as const)
        expect(Math.abs(column(cx(b), dark) - (high - low) * HEIGHT), b.title).toBeLessThanOrEqual(2);
      // where the full level's pale bar would stand, nothing: its localization was never scored
      expect(column(full.x + (full.width / 0.75) * 0.89, pale)).toBe(0);
    },
  );
});
