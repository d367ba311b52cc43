// The reasons chart's row labels: the label column is as wide as the longest label, so a long
// model id (openai-compatible:live-frontier / SoloGen · tt) is not cut on the left, and the plot
// keeps its width beside it.
import { describe, expect, it } from "vitest";
import { labelWidth, reasonsChart, rowLabel } from "../../src/report/reasons-chart.js";

const row = (model: string, level = "full") => ({
  model,
  method: "SoloGen",
  tier: "tt",
  level,
  counts: { "task-failed": 2 },
});

/** Every row label's text anchor (its right end) and text, as drawn. */
const labels = (svg: string) =>
  [...svg.matchAll(/<text class="tick bar-label" x="([\d.]+)"[^>]*>([^<]*)<\/text>/g)].map((m) => ({
    x: Number(m[1]),
    text: m[2],
  }));

describe("the reasons chart's labels", () => {
  it("leave room for the longest label, at 7.2 px a character of the 12 px font", () => {
    const long = "openai-compatible:live-frontier-with-a-much-longer-name";
    const svg = reasonsChart({
      reasons: [row("oracle"), row(long)],
      reasonCodes: ["task-failed"],
      levels: ["full"],
    });
    const drawn = labels(svg);
    expect(drawn.map((l) => l.text)).toEqual([`oracle / SoloGen · tt`, `${long} / SoloGen · tt`]);
    // right-aligned at the column's edge: each starts at x - 7.2 × its length, never left of 0
    for (const l of drawn) expect(l.x - 7.2 * l.text.length).toBeGreaterThanOrEqual(8);
    // the chart grew, and the plot kept its width of at least 660 px
    const width = Number(/viewBox="0 0 (\d+)/.exec(svg)?.[1]);
    expect(width - labelWidth([rowLabel(row(long))]) - 40).toBeGreaterThanOrEqual(660);
  });

  it("keeps the former 260 px column and 960 px chart for short labels", () => {
    const svg = reasonsChart({ reasons: [row("oracle")], reasonCodes: ["task-failed"], levels: ["full"] });
    expect(labels(svg)[0].x).toBe(252);
    expect(svg).toMatch(/viewBox="0 0 960 /);
  });

  it("name the report level where the report holds several, and size the column for it", () => {
    const svg = reasonsChart({
      reasons: [row("oracle"), row("oracle", "symptom")],
      reasonCodes: ["task-failed"],
      levels: ["full", "symptom"],
    });
    expect(labels(svg).map((l) => l.text)).toEqual([
      "oracle / SoloGen · tt · full",
      "oracle / SoloGen · tt · symptom",
    ]);
  });
});
