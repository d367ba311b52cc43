// The report-level runs of test/cli: `microremed run --report <level>` on Simple-Micro with the
// given cases, and the symptom-level oracle check that report-levels.test.ts (one fault per
// localization signal) and symptom-every-type.test.ts (every type, in the long lane) share.
import { join } from "node:path";
import { expect } from "vitest";
import { stringify } from "yaml";
import { loadEnv } from "../../src/envs/env.js";
import { REFERENCE_FAILURE_IDS } from "../../src/envs/schema-env.js";
import type { RunSummary } from "../../src/runlog/summary.js";
import { type ConversationJson, cli, type RunJson, readCases, readJson, tmp, write } from "./cli-helpers.js";

/** The reference's seven types; the others in a case list are the expert tier's. */
const REFERENCE = new Set(REFERENCE_FAILURE_IDS);

export const exp = (cases: string[][]) =>
  stringify({
    cases: cases.map(([failure, target]) => ({ failure, target })),
  });

export async function run(
  level: string,
  model: string,
  cases: string[][],
  extra: string[] = [],
  dir = tmp("mr-levels-"),
) {
  const file = write(dir, "exp.yaml", exp(cases));
  const args = [
    ...["run", "--env", "simple-micro", "--model", model, "--remediate-method", "SoloGen"],
    ...["--experiment-path", file, "--save-path", dir, "--run-name", "lv", "--speed", "600", "--settle", "5"],
    ...["--report", level, ...extra],
  ];
  const r = await cli(args, { timeout: 900_000 });
  const runDir = join(dir, "lv");
  return { r, dir, runDir, args };
}

export const summaryOf = (runDir: string) => readJson(join(runDir, "summary.json")) as unknown as RunSummary;

/**
 * At the symptom level the oracle finds and repairs every case, localized, from an alert that
 * names neither the failure nor any service of the namespace.
 */
export async function symptomOracle(faults: string[][]): Promise<void> {
  const { r, runDir } = await run("symptom", "oracle", faults);
  expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
  expect((readJson(join(runDir, "run.json")) as unknown as RunJson).config).toMatchObject({
    report: "symptom",
  });
  const cases = readCases(runDir);
  // every service of the namespace: the alert names none of them, not only the faulty one
  const names = loadEnv("simple-micro")
    .manifests.filter((m) => m.kind === "Deployment" || m.kind === "Service")
    .map((m) => m.metadata!.name!);
  expect(names.length).toBeGreaterThan(1);
  expect(cases.map((c) => [c.status, c.report, c.localization?.localized])).toEqual(
    faults.map(() => ["success", "symptom", true]),
  );
  for (const [i, c] of cases.entries()) {
    const conv = readJson(
      join(runDir, `case-${String(i + 1).padStart(3, "0")}`, "conversation.json"),
    ) as ConversationJson;
    const text = String((conv.conversation as { content: string }[])[1].content);
    const alert = text.slice(0, text.indexOf("## Runtime context"));
    expect(alert).toMatch(/^## Alert\n/);
    for (const word of [c.target, c.failure, "Root-cause", "Failure category", ...names])
      expect(alert).not.toContain(word);
    expect(alert).toMatch(/Entry path GET \/hello \(hello\): \d+% of 3 requests failed/);
  }
  const reference = faults.filter(([failure]) => REFERENCE.has(failure)).length;
  expect(summaryOf(runDir).localization).toEqual([
    expect.objectContaining({ level: "symptom", tier: "expert", evaluated: faults.length - reference }),
    expect.objectContaining({ level: "symptom", tier: "reference", evaluated: reference }),
  ]);
}
