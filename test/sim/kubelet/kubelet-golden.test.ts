// Golden tests of the pod lifecycle stages: each file in test/sim/kubelet/golden/ pins the clock, feeds
// objects to the embedded cluster and states what the pods and their events look like over time.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GoldenRun, loadGolden } from "../helpers/kubelet-harness.js";

const dir = new URL("./golden/", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

describe("pod lifecycle goldens", () => {
  it("has golden files", () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    it(file, async () => {
      const golden = loadGolden(new URL(file, dir).pathname);
      const run = new GoldenRun(golden);
      try {
        const diffs = golden.steps.flatMap((s) => run.step(s));
        expect(diffs).toEqual([]);
      } finally {
        await run.cluster.stop();
      }
    });
  }
});
