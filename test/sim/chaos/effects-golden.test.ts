// Golden tests of what Chaos Mesh's injections do: each file in
// test/sim/chaos/golden/effects/ pins the clock, creates objects, injects, and states the chaos
// object's status and events, the FaultBook, the pods and the metrics over time, compared whole.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EffectsRun, loadEffects } from "./effects-harness.js";

const dir = new URL("./golden/effects/", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

describe("Chaos Mesh effect goldens", () => {
  it("has golden files", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    it(file, async () => {
      const run = new EffectsRun(loadEffects(new URL(file, dir).pathname));
      try {
        expect(run.golden.steps.flatMap((s) => run.step(s))).toEqual([]);
      } finally {
        await run.cluster.stop();
      }
    });
  }
});
