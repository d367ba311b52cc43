// `microremed report` over runs at several report levels, through the built program:
// cases told different things are never pooled (a full run's 4/4 and a symptom run's 0/4 of the
// same tier are two rows, not "50.0% (4/8)"), the level is a column where rows differ by it, and
// the localization and stated-diagnosis figures are shown per tier and level in md, json and html.
// The fixture runs are fixtures.ts's LEVEL_RUNS; the numbers below are read off them.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/report/index.js";
import { writeFixtureRuns, writeLevelRuns } from "./fixtures.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
async function report(...args: string[]) {
  const r = await execa("node", [CLI, "report", ...args], { reject: false });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

let logDir: string;
let md: string;
beforeAll(async () => {
  logDir = writeLevelRuns();
  md = await report(logDir);
});

/** A Markdown table's rows under its heading, each as its cells. */
function mdRows(text: string, heading: string): string[][] {
  const from = text.indexOf(`## ${heading}\n`);
  expect(from, heading).toBeGreaterThanOrEqual(0);
  const lines = text.slice(from).split("\n").slice(1);
  const start = lines.findIndex((l) => l.startsWith("|"));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
  return lines
    .slice(start, end)
    .filter((l) => !l.startsWith("|--") && !l.startsWith("|---"))
    .map((l) =>
      l
        .slice(2, -2)
        .split(" | ")
        .map((c) => c.trim()),
    );
}

/** The localization row of the hard tier at the symptom level, after its key columns. */
const HARD_SYMPTOM = [
  "3",
  "66.7% (2/3) [20.8% – 93.9%]", // as the success table rounds its interval
  "33.3% (1/3) [6.1% – 79.2%]",
  "0.0% (0/3) [0.0% – 56.1%]",
  "33.3% (1/3) [6.1% – 79.2%]",
  "0.0% (0/3) [0.0% – 56.1%]",
  "-", // none stated: no rate of correct ones
];

describe("report levels apart", () => {
  it("md: a row per tier and level, with a level column, never the pooled 4/8", () => {
    expect(md).toContain(
      "4 runs, 14 cases; 3 model × method × level; tiers: easy, hard. Report levels: full, service, symptom.",
    );
    expect(md).not.toMatch(/\(4\/8\)|\(6\/11\)/);
    // each run says its level, the one from before levels too
    expect(md).toMatch(
      /SoloGen_easy: simple-micro, easy, gpt-4o \/ SoloGen, 4 cases; .*; report level full\n/,
    );
    expect(md).toMatch(
      /SoloGen_easy_symptom: simple-micro, easy, gpt-4o \/ SoloGen, 4 cases; .*; report level symptom\n/,
    );
    expect(mdRows(md, "Success by model, method and tier").map((r) => r.slice(0, 6))).toEqual([
      ["model", "method", "tier", "level", "success", "95% interval"],
      ["gpt-4o", "SoloGen", "easy", "full", "100.0% (4/4)", "51.0% – 100.0%"],
      ["gpt-4o", "SoloGen", "easy", "symptom", "0.0% (0/4)", "0.0% – 49.0%"],
      ["gpt-4o", "SoloGen", "hard", "symptom", "66.7% (2/3)", "20.8% – 93.9%"],
      ["gpt-4o", "ThinkRemed", "easy", "service", "100.0% (2/2)", "34.2% – 100.0%"],
    ]);
    // every table keyed by tier has the column; the run from before levels reads as full
    for (const heading of [
      "Tokens and cost by model, method and tier",
      "Reference verdict and no-collateral-damage verdict",
      "Why cases did not succeed",
    ])
      expect(
        mdRows(md, heading).map((r) => r.slice(2, 4)),
        heading,
      ).toEqual([
        ["tier", "level"],
        ["easy", "full"],
        ["easy", "symptom"],
        ["hard", "symptom"],
        ["easy", "service"],
      ]);
    expect(mdRows(md, "Success by system").map((r) => r.slice(0, 5))).toEqual([
      ["system", "model", "method", "level", "success"],
      ["simple-micro", "gpt-4o", "SoloGen", "full", "100.0% (4/4)"],
      ["simple-micro", "gpt-4o", "SoloGen", "symptom", "28.6% (2/7)"],
      ["simple-micro", "gpt-4o", "ThinkRemed", "service", "100.0% (2/2)"],
    ]);
    const failures = mdRows(md, "Success by failure type");
    expect(failures[0]).toEqual([
      "failure type",
      "gpt-4o / SoloGen · full",
      "gpt-4o / SoloGen · symptom",
      "gpt-4o / ThinkRemed · service",
    ]);
    expect(failures.find((r) => r[0] === "network-delay")).toEqual([
      "network-delay",
      "100.0% (1/1)",
      "0.0% (0/2)",
      "-",
    ]);
  });

  it("md: localization and stated diagnoses per tier and level, '-' where nothing was scored", () => {
    expect(mdRows(md, "Localization and stated diagnoses by model, method, tier and report level")).toEqual([
      [
        "model",
        "method",
        "tier",
        "level",
        "evaluated",
        "success",
        "localized",
        "localized, not repaired",
        "repaired without localizing",
        "stated diagnosis",
        "correct diagnosis",
      ],
      ["gpt-4o", "SoloGen", "easy", "full", "4", "100.0% (4/4) [51.0% – 100.0%]", "-", "-", "-", "-", "-"],
      [
        "gpt-4o",
        "SoloGen",
        "easy",
        "symptom",
        "4",
        "0.0% (0/4) [0.0% – 49.0%]",
        "50.0% (2/4) [15.0% – 85.0%]",
        "50.0% (2/4) [15.0% – 85.0%]",
        "0.0% (0/4) [0.0% – 49.0%]",
        "75.0% (3/4) [30.1% – 95.4%]",
        "66.7% (2/3) [20.8% – 93.9%]",
      ],
      ["gpt-4o", "SoloGen", "hard", "symptom", ...HARD_SYMPTOM],
      [
        "gpt-4o",
        "ThinkRemed",
        "easy",
        "service",
        "2",
        "100.0% (2/2) [34.2% – 100.0%]",
        "100.0% (2/2) [34.2% – 100.0%]",
        "0.0% (0/2) [0.0% – 65.8%]",
        "0.0% (0/2) [0.0% – 65.8%]",
        "100.0% (2/2) [34.2% – 100.0%]",
        "100.0% (2/2) [34.2% – 100.0%]",
      ],
    ]);
  });

  it("json: the level in every key, the localization rows, and each run's levels", async () => {
    const j = JSON.parse(await report(logDir, "--format", "json")) as Report;
    expect(j.levels).toEqual(["full", "service", "symptom"]);
    expect(j.series).toEqual([
      { model: "gpt-4o", method: "SoloGen", level: "full" },
      { model: "gpt-4o", method: "SoloGen", level: "symptom" },
      { model: "gpt-4o", method: "ThinkRemed", level: "service" },
    ]);
    const key = (x: { method: string; tier?: string; level: string }) =>
      [x.method, x.tier, x.level].filter(Boolean).join(" ");
    const rates = (xs: { successes: number; evaluated: number }[]) =>
      xs.map((x) => `${x.successes}/${x.evaluated}`);
    expect(j.byTier.map(key)).toEqual([
      "SoloGen easy full",
      "SoloGen easy symptom",
      "SoloGen hard symptom",
      "ThinkRemed easy service",
    ]);
    expect(rates(j.byTier)).toEqual(["4/4", "0/4", "2/3", "2/2"]);
    expect(j.bySeries.map(key)).toEqual(["SoloGen full", "SoloGen symptom", "ThinkRemed service"]);
    expect(rates(j.bySeries)).toEqual(["4/4", "2/7", "2/2"]);
    expect(j.perSystem.map((x) => x.level)).toEqual(["full", "symptom", "service"]);
    expect(j.reasons.map(key)).toEqual(j.byTier.map(key));
    expect(j.leaderboard.map((x) => `${key(x)} ${x.successes}/${x.evaluated}`)).toEqual([
      "SoloGen easy full 4/4",
      "ThinkRemed easy service 2/2",
      "SoloGen hard symptom 2/3",
      "SoloGen easy symptom 0/4",
    ]);
    expect(
      j.localization.map((x) => [key(x), x.scored, x.localized.count, x.stated.count, x.statedCorrect.count]),
    ).toEqual([
      ["SoloGen easy full", 0, 0, 0, 0],
      ["SoloGen easy symptom", 4, 2, 3, 2],
      ["SoloGen hard symptom", 3, 1, 0, 0],
      ["ThinkRemed easy service", 2, 2, 2, 2],
    ]);
    expect(j.localization[1]).toMatchObject({
      evaluated: 4,
      localizedNotRepaired: { count: 2, rate: 0.5, low: 0.15, high: 0.85 },
      repairedWithoutLocalizing: { count: 0 },
      statedCorrect: { count: 2, rate: 0.667, low: 0.208, high: 0.939 },
    });
    expect(j.runs.map((x) => x.levels)).toEqual([["full"], ["symptom"], ["symptom"], ["service"]]);
    // a case says its level where it or its run recorded one, and what its agent stated
    expect(j.runs[0].outcomes[0].report).toBeUndefined();
    expect(j.runs[1].outcomes[1]).toMatchObject({
      report: "symptom",
      localized: true,
      diagnosis: { service: "hello-service", correct: false },
    });
  });

  it("html: the same tables, the localization one included", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "report-levels-")), "r.html");
    await report(logDir, "--format", "html", "--out", file);
    const html = readFileSync(file, "utf8");
    expect(html).toContain("Report levels: full, service, symptom.");
    expect(html).toContain(
      '<td>gpt-4o</td><td>SoloGen</td><td>easy</td><td>symptom</td><td class="num">0.0% (0/4)</td>',
    );
    const start = html.indexOf('<section id="localization">');
    expect(start).toBeGreaterThan(0);
    const section = html.slice(start, html.indexOf("</section>", start));
    expect(section).toContain(
      "<h2>Localization and stated diagnoses by model, method, tier and report level</h2>",
    );
    expect(section).toContain(
      '<td>easy</td><td>symptom</td><td class="num">4</td><td class="num">0.0% (0/4) [0.0% – 49.0%]</td><td class="num">50.0% (2/4) [15.0% – 85.0%]</td>',
    );
    expect(section).toContain(
      '<td class="num">75.0% (3/4) [30.1% – 95.4%]</td><td class="num">66.7% (2/3) [20.8% – 93.9%]</td></tr>',
    );
  });

  it("one level: no level column, the opening names it; two levels of one method side by side", async () => {
    const symptom = await report(join(logDir, "SoloGen_easy_symptom"), join(logDir, "SoloGen_hard_symptom"));
    expect(symptom).toContain("2 runs, 8 cases; 1 model × method; tiers: easy, hard. Report level: symptom.");
    expect(mdRows(symptom, "Success by model, method and tier")[1].slice(0, 4)).toEqual([
      "gpt-4o",
      "SoloGen",
      "easy",
      "0.0% (0/4)",
    ]);
    expect(
      mdRows(symptom, "Localization and stated diagnoses by model, method, tier and report level")[2],
    ).toEqual(["gpt-4o", "SoloGen", "hard", ...HARD_SYMPTOM]);
    // one model and method told everything, then only the symptom: the same cases, paired
    const both = await report(join(logDir, "SoloGen_easy"), join(logDir, "SoloGen_easy_symptom"));
    expect(both).toContain("## Side by side: A = gpt-4o / SoloGen · full, B = gpt-4o / SoloGen · symptom");
    expect(both).toMatch(
      /\| simple-micro \| easy \| 1 \| pod-failure \| time-service \| solved by A only \| solved \| ineffective: not ok \|/,
    );
  });

  it("runs from before levels and localization: full, named once, and no localization table", async () => {
    const { logDirs } = writeFixtureRuns();
    const old = await report(...logDirs);
    expect(old).toContain("tiers: easy, hard. Report level: full (the reference's report).");
    expect(mdRows(old, "Success by model, method and tier")[0][3]).toBe("success");
    expect(old).not.toContain("Localization");
  });
});
