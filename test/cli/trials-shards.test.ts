// Trials and shards through the built CLI on the embedded cluster: `run --trials 3` of one
// pod-fail case with the oracle (every trial repairs) and with noop (none does) gives pass@1,
// pass@3 and pass^3 in summary.json and summary.txt, and in the md, json and html reports (the
// chart checked in headless Chromium with the traces opened); `--shard 1/2` and `--shard 2/2` of
// three cases, merged by `report`, hold the unsharded run's cases, and a missing or doubled shard
// is refused with E_CONFIG naming the folders.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report, RunOutcome } from "../../src/report/aggregate.js";
import { MEASURE_COLOURS } from "../../src/report/reliability-chart.js";
import type { RunSummary } from "../../src/runlog/summary.js";
import { countColour, readPng } from "../report/png.js";
import { checkBuilt, cli, lastLine, readJson, tmp } from "./cli-helpers.js";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);

let dir: string;
const runs = { oracle: "", noop: "", whole: "", shard1: "", shard2: "" };

async function run(save: string, model: string, experiments: number, extra: string[]): Promise<string> {
  const r = await cli(
    [
      "run",
      "--env",
      "simple-micro",
      "--model",
      model,
      "--experiment-path",
      "experiments/pod-fail.txt",
      "--experiments",
      String(experiments),
      "--save-path",
      save,
      "--speed",
      "600",
      "--settle",
      "5",
      ...extra,
    ],
    { timeout: 900_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const [name] = readdirSync(save);
  return join(save, name);
}

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-trials-");
  // one run at a time: each starts its own embedded cluster, and the machine is shared
  const solo = ["--remediate-method", "SoloGen"];
  runs.oracle = await run(join(dir, "oracle"), "oracle", 1, ["--trials", "3", ...solo]);
  runs.noop = await run(join(dir, "noop"), "noop", 1, ["--trials", "3", ...solo]);
  runs.shard1 = await run(join(dir, "shard1"), "oracle", 3, ["--shard", "1/2", ...solo]);
  runs.shard2 = await run(join(dir, "shard2"), "oracle", 3, ["--shard", "2/2", ...solo]);
  runs.whole = await run(join(dir, "whole"), "oracle", 3, ["--remediate-method", "SoloGen"]);
}, 1_800_000);

describe("--trials 3", () => {
  it("puts pass@1, pass@3 and pass^3 in summary.json and summary.txt", () => {
    const oracle = readJson<RunSummary>(join(runs.oracle, "summary.json"));
    expect(oracle).toMatchObject({
      trials: 3,
      cases: 3,
      evaluated: 3,
      successes: 3,
      passK: { k: 3, cases: 1, passAt1: 1, passAtK: 1, passHatK: 1 },
    });
    expect(oracle.passK!.intervals.passHatK).toEqual([0.207, 1]); // Wilson for 1 of 1
    expect(oracle.perFailure["pod-fail"].passK).toMatchObject({ k: 3, passAtK: 1 });
    expect(oracle.meanRemediationSecondsPerSuccess).toBeGreaterThan(0);
    const noop = readJson<RunSummary>(join(runs.noop, "summary.json"));
    expect(noop.passK).toMatchObject({ k: 3, cases: 1, passAt1: 0, passAtK: 0, passHatK: 0 });
    const txt = readFileSync(join(runs.oracle, "summary.txt"), "utf8");
    expect(txt).toContain("Success Rate: 100.0% (3/3 cases");
    expect(txt).toMatch(/Average Remediation Time per Success: \d+\.\ds/);
    expect(txt).toMatch(/Average Attempts per Success: 1\.00/);
    expect(txt).toMatch(/Average Tokens per Case: \d+/);
    expect(txt).toContain(
      "pass@1 100.0% [20.7%–100.0%], pass@3 100.0% [20.7%–100.0%], pass^3 100.0% [20.7%–100.0%]",
    );
    expect(readFileSync(join(runs.noop, "summary.txt"), "utf8")).toContain(
      "pass@1 0.0% [0.0%–79.3%], pass@3 0.0% [0.0%–79.3%], pass^3 0.0% [0.0%–79.3%]",
    );
  });

  it("report --format md and json show them per model, method, tier and failure type", async () => {
    const md = await cli(["report", runs.oracle, runs.noop, "--format", "md"]);
    expect(md.exitCode, md.stderr).toBe(0);
    expect(md.stdout).toContain("## Reliability over repeated trials by model, method and tier");
    expect(md.stdout).toContain("| pass@1 (95% interval) | pass@3 (95% interval) | pass^3 (95% interval) |");
    expect(md.stdout).toContain(
      "| oracle | SoloGen | pod-fail | 3 | 1 | 100.0% (20.7% – 100.0%) | 100.0% (20.7% – 100.0%) | 100.0% (20.7% – 100.0%) |",
    );
    expect(md.stdout).toContain("| noop | SoloGen | pod-fail | 3 | 1 | 0.0% (0.0% – 79.3%) |");
    expect(md.stdout).toContain("| pod-fail | oracle / SoloGen | 3 | 1 | 100.0%");
    // how the agent was confined is part of what a run measured: shown per run
    expect(md.stdout).toMatch(
      /pod-fail, oracle \/ SoloGen, 3 cases \(3 trials each\); agent access namespace, sandbox bwrap/,
    );
    const json = JSON.parse(
      (await cli(["report", runs.oracle, runs.noop, "--format", "json"])).stdout,
    ) as Report;
    expect(json.reliability!.byTier).toEqual([
      expect.objectContaining({
        model: "noop",
        method: "SoloGen",
        k: 3,
        passK: expect.objectContaining({ passAtK: 0 }),
      }),
      expect.objectContaining({ model: "oracle", k: 3, passK: expect.objectContaining({ passHatK: 1 }) }),
    ]);
    expect(json.runs.map((r) => r.outcomes.map((o) => o.trial))).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
  });

  describe("report --format html", { timeout: 240_000 }, () => {
    let html: string;
    let file: string;
    beforeAll(async () => {
      file = join(dir, "report.html");
      const r = await cli([
        "report",
        runs.oracle,
        runs.noop,
        "--format",
        "html",
        "--cases",
        "all",
        "--out",
        file,
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      html = readFileSync(file, "utf8");
    });

    it("holds the reliability chart and one trace per trial", () => {
      expect(html).toContain('<svg id="chart-reliability"');
      expect(html.match(/<details class="case"/g)).toHaveLength(6);
    });

    it.skipIf(!CHROMIUM)("renders the chart in headless Chromium, traces opened", async () => {
      const opened = join(dir, "report-open.html");
      writeFileSync(opened, html.replace(/<details/g, "<details open"));
      const profile = mkdtempSync(join(tmpdir(), "report-chromium-"));
      const flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        `--user-data-dir=${profile}`,
      ];
      const dom = await execa(CHROMIUM!, [...flags, "--dump-dom", pathToFileURL(opened).href], {
        reject: false,
        timeout: 120_000,
      });
      expect(dom.exitCode, dom.stderr).toBe(0);
      const at = dom.stdout.indexOf('<svg id="chart-reliability"');
      const chart = dom.stdout.slice(at, dom.stdout.indexOf("</svg>", at));
      expect(chart).toContain("Reliability over repeated trials: pass@1, pass@k and pass^k");
      expect(chart.match(/<rect class="bar rel-bar"/g)).toHaveLength(6); // 2 series × 3 measures
      expect(chart.match(/class="whisker"/g)).toHaveLength(6);
      expect(chart).toContain(
        "<title>oracle / SoloGen, pod-fail: pass^3 100.0%, 95% interval 20.7% – 100.0% (1 cases, k = 3)</title>",
      );
      expect(chart).toContain(">pass^3 (all 3)</text>");
      expect(dom.stdout).toContain("<h2>Reliability over repeated trials by failure type</h2>");
      const png = join(dir, "report.png");
      await execa(
        CHROMIUM!,
        [...flags, `--screenshot=${png}`, "--window-size=1280,2600", pathToFileURL(file).href],
        {
          reject: false,
          timeout: 120_000,
        },
      );
      console.log(`screenshot of the HTML report with the reliability chart: ${png}`);
      // the oracle's three bars are full height: each measure's colour fills thousands of pixels
      const img = readPng(png);
      for (const c of MEASURE_COLOURS) expect(countColour(img, c), c).toBeGreaterThan(2000);
    });
  });
});

describe("--shard", () => {
  const outcomes = async (dirs: string[]) => {
    const r = await cli(["report", ...dirs, "--format", "json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as Report).runs;
  };

  it("report merges shard 1/2 and 2/2 into the unsharded run's cases", async () => {
    const shard1 = readJson(join(runs.shard1, "run.json"));
    expect(shard1).toMatchObject({ plannedCases: 3, shard: "1/2", trials: 1 });
    const [merged, ...rest] = await outcomes([runs.shard2, runs.shard1]);
    expect(rest).toEqual([]);
    expect(merged.shards).toEqual([runs.shard1, runs.shard2]);
    const [whole] = await outcomes([runs.whole]);
    const pick = (o: RunOutcome) => ({
      index: o.index,
      failure: o.failure,
      target: o.target,
      status: o.status,
    });
    expect(merged.outcomes.map(pick)).toEqual(whole.outcomes.map(pick));
    expect(merged.outcomes.map((o) => o.index)).toEqual([1, 2, 3]);
    expect(merged.outcomes.every((o) => o.status === "success")).toBe(true);
  });

  it("refuses a missing shard and a doubled one, naming the folders", async () => {
    const missing = await cli(["report", runs.shard1, "--format", "json"]);
    expect(missing.exitCode).toBe(1);
    expect(lastLine(missing.stderr)).toContain(
      `error E_CONFIG: shard 2/2 of the run in ${runs.shard1} (shard 1/2) is missing`,
    );
    const copy = join(dir, "copy-of-shard2");
    cpSync(runs.shard2, copy, { recursive: true });
    const doubled = await cli(["report", runs.shard1, runs.shard2, copy, "--format", "md"]);
    expect(doubled.exitCode).toBe(1);
    expect(lastLine(doubled.stderr)).toContain(`shard 2/2 is given twice (${runs.shard2} and ${copy})`);
  });
});
