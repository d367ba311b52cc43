// `show` and `diff` through the built CLI on real runs: an oracle run and a noop run of the same two
// pod-fail cases (same seed), and an oracle run of one case. `diff` sets the first two side by
// side (every case solved by A only) and refuses the third; `show` prints a case's trace; the HTML
// report holds the reasons chart and each case's trace with its playbook text, checked in
// headless Chromium with the <details> opened.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { codeColour } from "../../src/report/reason-table.js";
import { countColour, readPng } from "../report/png.js";
import { checkBuilt, cli, lastLine, readCases, tmp } from "./cli-helpers.js";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);

let dir: string;
const runs: Record<"oracle" | "noop" | "one", string> = { oracle: "", noop: "", one: "" };

async function run(model: string, save: string, experiments: number): Promise<string> {
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
    ],
    { timeout: 300_000 },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  const [name] = readdirSync(save);
  return join(save, name);
}

beforeAll(async () => {
  checkBuilt();
  dir = tmp("mr-diff-");
  runs.oracle = await run("oracle", join(dir, "oracle"), 2);
  runs.noop = await run("noop", join(dir, "noop"), 2);
  runs.one = await run("oracle", join(dir, "one"), 1);
}, 900_000);

describe("diff", () => {
  it("lists every case of an oracle run against a noop run as solved by A only, with B's reason", async () => {
    const r = await cli(["diff", runs.oracle, runs.noop]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("solved by both: 0");
    expect(r.stdout).toContain("solved by A only: 2");
    expect(r.stdout).toContain("solved by B only: 0");
    expect(r.stdout).toContain("solved by neither: 0");
    // noop's playbook changes nothing: ThinkRemed gives up after T_max, each attempt ineffective
    expect(r.stdout).toMatch(
      /B: gave-up: after 2 attempts; last: ineffective: the \S+ pods are not all Running and Ready/,
    );
    const json = JSON.parse((await cli(["diff", runs.oracle, runs.noop, "--json"])).stdout);
    expect(json.rows.map((x: { group: string }) => x.group)).toEqual(["a-only", "a-only"]);
  });

  it("refuses runs that do not hold the same cases, saying what differs", async () => {
    const r = await cli(["diff", runs.oracle, runs.one]);
    expect(r.exitCode).toBe(2);
    expect(lastLine(r.stderr)).toMatch(
      /^error E_USAGE: .* do not hold the same cases \(--experiments 2 vs 1\)/,
    );
    expect(lastLine((await cli(["diff", runs.oracle, dir])).stderr)).toMatch(/holds 3 runs, not one/);
  });
});

describe("show", () => {
  it("prints the trace of a case: reason, diagnosis, conversation, playbooks, verdicts, phases, tokens", async () => {
    const r = await cli(["show", runs.noop, "1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rec = readCases(runs.noop)[0];
    expect(r.stdout).toContain(`Case 1: ${rec.failure} → ${rec.target}`);
    expect(r.stdout).toContain("Reason: gave-up: after 2 attempts; last: ineffective:");
    for (const h of [
      "== Diagnosis report",
      "== Conversation",
      "== Attempt 1: ineffective",
      "== Attempt 2",
      "== Verdicts",
      "== Phases",
      "== Tokens and cost",
    ])
      expect(r.stdout).toContain(h);
    expect(r.stdout).toContain("→ print_playbook:");
    expect(r.stdout).toContain('msg: "noop: no change"');
    expect(r.stdout).toMatch(/reference: fail: the \S+ pods are not all Running and Ready/);
    const missing = await cli(["show", runs.noop, "9"]);
    expect(lastLine(missing.stderr)).toMatch(/has no finished case 9 \(fix: pass one of its cases: 1, 2\)/);
    // the case folder's name names the case too, and a wrong one is refused with a fitting example
    const byFolder = await cli(["show", runs.noop, "case-001"]);
    expect(byFolder.exitCode, byFolder.stderr).toBe(0);
    expect(byFolder.stdout).toBe(r.stdout);
    const wrong = await cli(["show", runs.noop, "first"]);
    expect(wrong.exitCode).toBe(2);
    expect(lastLine(wrong.stderr)).toContain(
      `<case> must be a case's number or its folder's name, got "first" (fix: pass e.g. 3 or case-003)`,
    );
    const trial = await cli(["show", runs.noop, "1", "--trial", "one"]);
    expect(lastLine(trial.stderr)).toContain("(fix: pass e.g. --trial 2)");
  });
});

describe("the HTML report of the two runs", { timeout: 180_000 }, () => {
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

  it("stays one file with no external script, the traces folded in <details>", () => {
    expect(html).not.toMatch(/<script[^>]*\ssrc|<link|<img|<iframe|\ssrc=|\shref=|url\(|@import/i);
    // the one script is the leaderboard's sorting, inline
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<details class="case"/g)).toHaveLength(4);
  });

  it.skipIf(!CHROMIUM)(
    "shows the reasons chart and each case's trace with its playbook, details opened",
    async () => {
      // every <details> opened, as a reader who clicks each one
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
      });
      expect(dom.exitCode, dom.stderr).toBe(0);
      const chart = dom.stdout.slice(dom.stdout.indexOf('<svg id="chart-reasons"'));
      expect(chart).toContain("Why cases did not succeed, per model");
      expect(chart).toMatch(
        /<rect class="reason-seg" data-code="gave-up"[^>]*><title>noop \/ ThinkRemed · pod-fail: gave-up 2 of 2/,
      );
      expect(dom.stdout).toContain("<h2>Cases</h2>");
      // the oracle's playbook text and the noop's, inside the opened traces
      expect(dom.stdout).toMatch(
        /<details open="" class="playbook"><summary>Playbook<\/summary><pre>- name: Remediate pod-fail/,
      );
      expect(dom.stdout).toContain("noop: no change");
      expect(dom.stdout).toMatch(/<summary>Attempt 1: <span class="code">ineffective<\/span>/);
      const png = join(dir, "report.png");
      await execa(
        CHROMIUM!,
        [...flags, `--screenshot=${png}`, "--window-size=1280,2400", pathToFileURL(file).href],
        {
          reject: false,
        },
      );
      console.log(`screenshot of the HTML report: ${png}`);
      // the gave-up segment of the reasons chart is drawn (a bar, not only the legend's swatch)
      expect(countColour(readPng(png), codeColour("gave-up"))).toBeGreaterThan(2000);
    },
  );
});
