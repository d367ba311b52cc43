// The HTML report opened in headless Chromium (Debian's `chromium`): the page made by the built
// CLI is loaded from disk, its DOM as Chromium parsed it is checked for the charts and tables,
// and a screenshot is decoded to check the bars and points were drawn in their colours. The
// screenshot's path is printed, to look at.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { PALETTE } from "../../src/report/svg.js";
import { CHROMIUM, chromium } from "./chromium.js";
import { writeFixtureRuns } from "./fixtures.js";
import { countColour, readPng } from "./png.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
if (!CHROMIUM)
  console.warn(
    "html.test.ts: skipping the browser checks: chromium is not installed (apt-get install -y chromium)",
  );

let dir: string;
let html: string;
let url: string;
beforeAll(async () => {
  const { logDirs } = writeFixtureRuns();
  dir = mkdtempSync(join(tmpdir(), "report-html-"));
  const file = join(dir, "report.html");
  const r = await execa("node", [CLI, "report", ...logDirs, "--format", "html", "--out", file], {
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  html = readFileSync(file, "utf8");
  url = pathToFileURL(file).href;
});

describe("the HTML report", () => {
  it("is one self-contained file: no external script, no external request", () => {
    expect(html).not.toMatch(/<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);
    // one inline script, the leaderboard's sorting, which asks the network for nothing
    const scripts = html.match(/<script[^>]*>[\s\S]*?<\/script>/gi) ?? [];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^<script>/);
    expect(scripts[0]).not.toMatch(
      /fetch|XMLHttpRequest|WebSocket|EventSource|import|sendBeacon|location|open\(/,
    );
    // the only URL is the SVG namespace, which is a name, not a request
    expect(html.match(/https?:\/\/[^"]+/g)?.filter((u) => u !== "http://www.w3.org/2000/svg") ?? []).toEqual(
      [],
    );
  });

  describe.skipIf(!CHROMIUM)("in headless Chromium", { timeout: 120_000 }, () => {
    it("parses into the two charts with bars, whiskers, points, titles and the table rows", async () => {
      const r = await chromium(["--dump-dom", url]);
      expect(r.exitCode, r.stderr).toBe(0);
      const dom = r.stdout;
      const chart = (id: string) =>
        dom.slice(dom.indexOf(`<svg id="${id}"`), dom.indexOf("</svg>", dom.indexOf(`<svg id="${id}"`)));
      const bars = chart("chart-success");
      expect(bars).toContain("Success rate by tier, per model and method");
      expect(bars.match(/<rect class="bar"/g)).toHaveLength(8); // 2 models × 2 methods × 2 tiers
      expect(bars.match(/class="whisker"/g)).toHaveLength(8);
      expect(bars).toContain(">Tier</text>");
      expect(bars).toContain("gpt-4o / SoloGen, easy: 75.0% (3/4), 95% interval 30.1% – 95.4%");
      expect(bars.match(/class="legend-item"/g)).toHaveLength(4);
      const scatter = chart("chart-cost");
      expect(scatter).toContain("Tokens against success"); // qwen has no prices: tokens stand in
      expect(scatter.match(/<circle class="point"/g)).toHaveLength(4);
      expect(scatter).toContain(">qwen2.5-7b / ThinkRemed</text>");
      expect(dom).toContain('aria-labelledby="chart-success-title chart-success-desc"');
      for (const h of [
        "Success by model, method and tier",
        "Reference verdict and no-collateral-damage verdict",
        "Success by failure type",
        "Success by system",
      ])
        expect(dom).toContain(`<h2>${h}</h2>`);
      expect(dom).toMatch(
        /<td>gpt-4o<\/td><td>SoloGen<\/td><td>hard<\/td><td class="num">4<\/td><td class="num">50.0% \(2\/4\)<\/td><td class="num">75.0% \(3\/4\)<\/td><td class="num">1<\/td>/,
      );
    });

    it("draws the charts: a screenshot holds each series' colour", async () => {
      const png = join(dir, "report.png");
      const r = await chromium([`--screenshot=${png}`, "--window-size=1280,2000", url]);
      expect(existsSync(png), r.stderr).toBe(true);
      console.log(`screenshot of the HTML report: ${png}`);
      const img = readPng(png);
      expect([img.width, img.height]).toEqual([1280, 2000]);
      // four series: four colours of the palette, each filling bars (thousands of pixels), not
      // only a legend swatch (14 × 14) and a point
      for (const c of PALETTE.slice(0, 4)) expect(countColour(img, c), c).toBeGreaterThan(2000);
      // the unused colours do not appear: nothing drew a fifth series
      expect(countColour(img, PALETTE[4])).toBe(0);
    });
  });
});
