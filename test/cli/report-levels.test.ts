// Report levels through the CLI on Simple-Micro: the oracle repairs every case at every report level
// (at the symptom level it finds the faulty service itself) and noop none; the symptom report
// names neither the service nor the failure; a resume with another --report is refused; a cmd:
// agent that fixes the right object is localized, one that restarts every Deployment repairs
// without localizing.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPORT_SCOPE } from "../../src/diagnosis/levels.js";
import type { ChatMessage } from "../../src/llm/types.js";
import { type ConversationJson, checkBuilt, cli, readCases, readJson, tmp, write } from "./cli-helpers.js";
import { exp, run, summaryOf, symptomOracle } from "./levels.js";

beforeAll(checkBuilt);

/**
 * One fault for each signal the oracle finds a service by (models/oracle/localize.py: saturated,
 * slow_disk, shaped, unready, drifted, services_broken); every type of every tier at the symptom
 * level is the long lane's (symptom-every-type.test.ts) and the sweep's (test/sweep/levels.test.ts).
 */
const SIGNALS = [
  ["cpu-stress", "time-service"],
  ["disk-io", "hello-service"],
  ["network-delay", "time-service"],
  ["pod-fail", "hello-service"],
  ["pod-config-error", "time-service"],
  ["svc-deleted", "hello-service"],
];
describe("report levels", () => {
  it("symptom: the oracle finds and repairs a fault of each signal, localized, from an alert that names neither service nor failure", async () => {
    await symptomOracle(SIGNALS);
  }, 900_000);

  it("service and full: the oracle repairs; a resume with another --report is refused", async () => {
    const service = await run("service", "oracle", [
      ["pod-config-error", "hello-service"],
      ["network-delay", "hello-service"],
    ]);
    expect(service.r.exitCode, service.r.stderr.slice(-2000)).toBe(0);
    expect(readCases(service.runDir).map((c) => [c.status, c.report])).toEqual([
      ["success", "service"],
      ["success", "service"],
    ]);
    const conv = readJson(join(service.runDir, "case-001", "conversation.json")) as ConversationJson;
    expect(conv.report).toMatchObject({ level: "service", service: "hello-service" });
    expect(conv.report.category).toBeUndefined();
    // the oracle states the service the report names: recorded, scored by fact
    expect(readCases(service.runDir)[0].diagnosis).toMatchObject({ service: "hello-service", correct: true });
    const again = await cli(service.args.map((a) => (a === "service" ? "symptom" : a)));
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toMatch(/E_RESUME_MISMATCH.*report: "service" → "symptom"/s);
    const full = await run("full", "oracle", [["cpu-stress", "time-service"]], []);
    expect(full.r.exitCode, full.r.stderr.slice(-2000)).toBe(0);
    expect(readCases(full.runDir).map((c) => [c.status, c.report, c.localization?.localized])).toEqual([
      ["success", "full", true],
    ]);
  }, 900_000);

  it("noop repairs nothing at any level", async () => {
    for (const level of ["full", "service", "symptom"]) {
      const { r, runDir } = await run(level, "noop", [["pod-fail", "time-service"]]);
      expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
      expect(summaryOf(runDir)).toMatchObject({ evaluated: 1, successes: 0 });
      expect(readCases(runDir)[0].localization).toMatchObject({ localized: false, changed: [] });
    }
  }, 900_000);
});

describe("localization through the CLI", () => {
  const agent = (dir: string, name: string, body: string) =>
    write(
      dir,
      name,
      `#!/bin/sh\nset -eu\nreport=$(cat)\nns=$(printf '%s' "$report" | python3 -c "import json,sys; print(json.load(sys.stdin)['namespace'])")\n${body}\n`,
    );

  it("an agent that fixes the right object is localized; one that restarts every Deployment repairs without localizing", async () => {
    const dir = tmp("mr-loc-");
    const right = agent(
      dir,
      "right.sh",
      `svc=$(printf '%s' "$report" | python3 -c "import json,sys; print(json.load(sys.stdin)['service'])")\nkubectl -n "$ns" rollout restart "deployment/$svc" >&2\nkubectl -n "$ns" rollout status "deployment/$svc" --timeout=600s >&2`,
    );
    const broad = agent(
      dir,
      "broad.sh",
      `kubectl -n "$ns" rollout restart deployment >&2\nfor d in $(kubectl -n "$ns" get deploy -o name); do kubectl -n "$ns" rollout status "$d" --timeout=600s >&2; done`,
    );
    for (const [script, localized] of [
      [right, true],
      [broad, false],
    ] as const) {
      const d = tmp("mr-loc-");
      const file = write(d, "exp.yaml", exp([["pod-fail", "time-service"]]));
      const res = await cli(
        [
          ...["run", "--env", "simple-micro", "--model", "noop", "--remediate-method", `cmd:sh ${script}`],
          ...[
            "--experiment-path",
            file,
            "--save-path",
            d,
            "--run-name",
            "lv",
            "--speed",
            "600",
            "--settle",
            "5",
            // the broad agent needs no service: it gets the symptom level's alert
            ...(localized ? [] : ["--report", "symptom"]),
          ],
        ],
        { timeout: 600_000 },
      );
      expect(res.exitCode, res.stderr.slice(-2000)).toBe(0);
      // a cmd: agent's stdin says what the report of its level holds, and names no service below full
      const stdin = JSON.parse(
        (
          readJson<ConversationJson>(join(d, "lv", "case-001", "conversation.json"))
            .conversation as ChatMessage[]
        )[0].content,
      );
      expect(stdin.scope).toBe(REPORT_SCOPE[localized ? "full" : "symptom"]);
      if (localized) expect(stdin.service).toBe("time-service");
      else expect(stdin).not.toHaveProperty("service");
      const [c] = readCases(join(d, "lv"));
      expect(c.status).toBe("success");
      expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(localized);
      if (!localized) expect(c.localization?.collateral).toContain("patch deployments/hello-service");
      const row = summaryOf(join(d, "lv")).localization?.[0];
      expect(row?.repairedWithoutLocalizing.count).toBe(localized ? 0 : 1);
    }
  }, 900_000);
});

describe("noise", () => {
  it("the same seed makes the same background events; they never decide the verdict, and show lists them", async () => {
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const { r, runDir } = await run(
        "symptom",
        "oracle",
        [["pod-fail", "time-service"]],
        ["--noise", "--seed", "7"],
      );
      expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
      runs.push({ runDir, cases: readCases(runDir) });
    }
    const [a, b] = runs.map((x) => x.cases[0]);
    expect(a.noise?.length).toBeGreaterThanOrEqual(2);
    expect(a.noise?.every((e) => e.target !== "time-service")).toBe(true);
    expect(b.noise).toEqual(a.noise);
    expect([a.status, a.localization?.localized, b.status]).toEqual(["success", true, "success"]);
    const shown = await cli(["show", runs[0].runDir, "1"]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`noise: ${a.noise?.[0].kind} on ${a.noise?.[0].target}`);
    expect(shown.stdout).toMatch(/report level: symptom\nlocalization: localized/);
  }, 900_000);
});
