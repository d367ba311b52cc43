// The leaderboard of the HTML report, opened in headless Chromium and driven
// through the DevTools protocol (a click on a column's header sorts by it, a second reverses),
// over runs with a long OpenAI-compatible model id, --trials 3 (pass@k) and report levels (a
// run's config.report, a case's own `report`). The page stays one file with no request.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { caseRecord, RUNS } from "./fixtures.js";

const CLI = join(dirname(fileURLToPath(import.meta.url)), "../../dist/src/cli/main.js");
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
const LONG = "openai-compatible:live-frontier-2025-10-preview-instruct-with-a-rather-long-deployment-name";

/** A run folder: `outcomes` per trial ("SSF" = three cases), with config.report where given. */
function writeRun(
  root: string,
  name: string,
  model: string,
  method: string,
  trials: string[],
  report?: string,
) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const config = {
    env: "simple-micro",
    experimentPath: "/opt/microremed/experiments/easy.txt",
    method,
    model,
    seed: 1,
    trials: trials.length,
    ...(report ? { report } : {}),
  };
  writeFileSync(join(dir, "run.json"), JSON.stringify({ config, startedAt: "2025-01-01T00:00:00.000Z" }));
  const base = { ...RUNS[0], model, method, tier: "easy", outcomes: "" };
  const lines = trials.flatMap((outcomes, t) =>
    [...outcomes].map((o, i) => {
      const rec = { ...caseRecord(base, o, i), ...(trials.length > 1 ? { trial: t + 1 } : {}) };
      return JSON.stringify(rec);
    }),
  );
  writeFileSync(join(dir, "cases.jsonl"), `${lines.join("\n")}\n`);
  return dir;
}

let html: string;
let url: string;
beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "report-leaderboard-"));
  const dirs = [
    writeRun(root, "long-solo", LONG, "SoloGen", ["SFSF", "FFSF", "SSSF"]), // trials: pass@3
    writeRun(root, "gpt-think", "gpt-4o", "ThinkRemed", ["SSSS"]),
    writeRun(root, "gpt-solo-symptom", "gpt-4o", "SoloGen", ["SFFF"], "symptom"),
  ];
  // one case of the last run says its own level
  const f = join(dirs[2], "cases.jsonl");
  const lines = readFileSync(f, "utf8").trim().split("\n");
  lines[1] = JSON.stringify({ ...JSON.parse(lines[1]), report: "service" });
  writeFileSync(f, `${lines.join("\n")}\n`);
  const file = join(root, "report.html");
  const r = await execa("node", [CLI, "report", ...dirs, "--format", "html", "--out", file], {
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  html = readFileSync(file, "utf8");
  url = pathToFileURL(file).href;
});

/** Chromium with the page open and its DevTools socket; `evaluate` runs an expression in the page. */
async function openPage() {
  const profile = mkdtempSync(join(tmpdir(), "leaderboard-chromium-"));
  const child = execa(
    CHROMIUM!,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--window-size=1280,1600",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      url,
    ],
    { reject: false, timeout: 90_000 },
  );
  const port = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stderr?.on("data", (b: Buffer) => {
      seen += b.toString();
      const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(seen);
      if (m) resolve(m[1]);
    });
    child.once("exit", () => reject(new Error(`chromium exited: ${seen}`)));
  });
  type Target = { type: string; url: string; webSocketDebuggerUrl: string };
  let page: Target | undefined;
  for (let i = 0; i < 50 && !page; i++) {
    const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Target[];
    page = list.find((t) => t.type === "page" && t.url === url);
    if (!page) await new Promise((r) => setTimeout(r, 100));
  }
  const ws = new WebSocket(page!.webSocketDebuggerUrl);
  await new Promise((r) => ws.once("open", r));
  let id = 0;
  const evaluate = <T>(expression: string) =>
    new Promise<T>((resolve, reject) => {
      const my = ++id;
      const onMessage = (data: Buffer) => {
        const msg = JSON.parse(data.toString()) as {
          id?: number;
          result?: { result: { value: T } };
          error?: unknown;
        };
        if (msg.id !== my) return;
        ws.off("message", onMessage);
        if (msg.error) reject(new Error(JSON.stringify(msg.error)));
        else resolve(msg.result!.result.value);
      };
      ws.on("message", onMessage);
      ws.send(
        JSON.stringify({ id: my, method: "Runtime.evaluate", params: { expression, returnByValue: true } }),
      );
    });
  // the page has loaded once its table is there
  for (
    let i = 0;
    i < 50 && !(await evaluate<boolean>("!!document.querySelector('#leaderboard tbody tr')"));
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  const close = () => {
    ws.close();
    child.kill();
  };
  return { evaluate, close };
}

const ROWS = `[...document.querySelectorAll("#leaderboard tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent))`;
const click = (head: string) =>
  `[...document.querySelectorAll("#leaderboard th button")].find((b) => b.textContent === ${JSON.stringify(head)}).click()`;

describe("the leaderboard", () => {
  it("has a row per model × method × tier × report level, best first, with intervals, pass@k and costs", () => {
    // the leaderboard's own rows: the tables below it have a level column too, and nine cells
    const start = html.indexOf('<section id="leaderboard"');
    const board = html.slice(start, html.indexOf("</section>", start));
    const rows = [...board.matchAll(/<tr>(<td[\s\S]*?)<\/tr>/g)]
      .map((m) => [...m[1].matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((c) => c[1]))
      .filter((r) => r.length === 9);
    expect(rows.map((r) => r.slice(0, 5))).toEqual([
      ["gpt-4o", "ThinkRemed", "easy", "full", "100.0% (4/4)"],
      [LONG, "SoloGen", "easy", "full", "50.0% (6/12)"],
      ["gpt-4o", "SoloGen", "easy", "symptom", "33.3% (1/3)"],
      ["gpt-4o", "SoloGen", "easy", "service", "0.0% (0/1)"],
    ]);
    expect(rows[0][5]).toBe("51.0% – 100.0%");
    // 4 cases × 3 trials: cases 1 and 3 passed at least once, case 4 never, case 2 once
    expect(rows[1][6]).toMatch(/^pass@3 75\.0% /);
    expect(rows[0][6]).toBe("–");
    expect(rows[0][7]).toBe("$0.0100"); // $0.01 a case, every case a success
    expect(rows[1][7]).toBe("–"); // the long model has no prices
    expect(rows[3][7]).toBe("–"); // no success: no cost per success
    expect(rows[0][8]).toBe("45.0 s"); // (30 + 40 + 50 + 60) / 4
  });

  describe.skipIf(!CHROMIUM)("in headless Chromium", { timeout: 120_000 }, () => {
    it("sorts by the clicked column, reverses on a second click, and shows long model ids whole", async () => {
      const page = await openPage();
      try {
        const first = await page.evaluate<string[][]>(ROWS);
        expect(first.map((r) => r[4])).toEqual(["100.0% (4/4)", "50.0% (6/12)", "33.3% (1/3)", "0.0% (0/1)"]);
        await page.evaluate(click("Model"));
        expect((await page.evaluate<string[][]>(ROWS)).map((r) => r[0])).toEqual([
          "gpt-4o",
          "gpt-4o",
          "gpt-4o",
          LONG,
        ]);
        await page.evaluate(click("Model"));
        expect((await page.evaluate<string[][]>(ROWS))[0][0]).toBe(LONG);
        // cost: cheapest first; rows without a cost per success last, whichever way
        await page.evaluate(click("Cost / success"));
        const byCost = await page.evaluate<string[][]>(ROWS);
        expect(byCost.map((r) => r[7]).slice(0, 2)).toEqual(["$0.0100", "$0.0300"]);
        expect(byCost.at(-1)?.[7]).toBe("–");
        await page.evaluate(click("Cost / success"));
        expect((await page.evaluate<string[][]>(ROWS)).map((r) => r[7])).toEqual([
          "$0.0300",
          "$0.0100",
          "–",
          "–",
        ]);
        expect(
          await page.evaluate<string>(`document.querySelector('#leaderboard th[aria-sort]').textContent`),
        ).toBe("Cost / success");
        // the long id: all of it in the cell, nothing overflowing the cell or the page
        const fit = await page.evaluate<{ text: string; cell: boolean; page: boolean }>(`(() => {
          const td = [...document.querySelectorAll("#leaderboard td.id")].find((c) => c.textContent.startsWith("openai"));
          const wrap = document.querySelector("#leaderboard .table-wrap");
          return { text: td.textContent, cell: td.scrollWidth <= td.clientWidth, page: wrap.scrollWidth <= wrap.clientWidth };
        })()`);
        expect(fit).toEqual({ text: LONG, cell: true, page: true });
      } finally {
        page.close();
      }
    });
  });
});
