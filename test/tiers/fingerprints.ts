// No fingerprint of the harness where a model looks, over every failure type of every system
// (test/fingerprints/sandbox.test.ts is the
// quick one): after each fault is in and its checks have run, an agent that looks everywhere a
// model looks finds nothing that names the harness, the run or a case.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { look, traces } from "../fingerprints/look.js";

type Targets = Record<string, (string | { service: string })[]>;

/** One case per failure type the system lists, on its first target. */
function everyType(env: string): string {
  const spec = parse(readFileSync(join("envs", env, "env.yaml"), "utf8")) as { faultTargets: Targets };
  const lines = Object.entries(spec.faultTargets).map(([failure, targets]) => {
    const t = targets[0];
    return `  - {failure: ${failure}, target: ${typeof t === "string" ? t : t.service}}`;
  });
  return `cases:\n${lines.join("\n")}\n`;
}

/** Every failure type of `env`, each looked at after its checks. */
export function noTraces(env: string) {
  it(`${env}, every failure type: no trace of the harness`, async () => {
    const { seen, saveDir } = await look(env, everyType(env));
    expect(seen.length).toBeGreaterThan(6);
    for (const s of seen) expect(traces(s, saveDir)).toEqual([]);
  });
}
