// No fingerprint of the harness where a model looks, over every incident scenario of
// Simple-Micro: after each scenario's steps (its causes, the wait, its red herrings) and the
// noise, an agent that looks everywhere a model looks finds nothing that names the harness, the
// run, a case or the scenario.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { look, traces } from "../fingerprints/look.js";

it("simple-micro, every incident scenario: no trace of the harness", async () => {
  const spec = parse(readFileSync(join("envs", "simple-micro", "env.yaml"), "utf8")) as {
    incidentTargets: Record<string, { alert: string }[]>;
  };
  const lines = Object.entries(spec.incidentTargets).map(
    ([s, ts]) => `  - {failure: ${s}, target: ${ts[0].alert}}`,
  );
  const { seen, saveDir } = await look("simple-micro", `cases:\n${lines.join("\n")}\n`);
  expect(seen.length).toBe(lines.length);
  for (const s of seen) expect(traces(s, saveDir)).toEqual([]);
});
