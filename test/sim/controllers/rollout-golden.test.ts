// Golden tests of the Deployment controller's rolling update, as kube's rolling.go and sync.go run
// it: each file in test/sim/controllers/golden/ pins the clock, runs a Deployment with the real
// controllers and kubelet (containers scripted), changes its template, and states what the
// Deployment, its ReplicaSets and the controllers' events look like over time.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type RolloutGolden, RolloutRun } from "./rollout-harness.js";

const dir = new URL("./golden/", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.startsWith("rollout-") && f.endsWith(".yaml"))
  .sort();

describe("rolling update goldens", () => {
  it("has golden files", () => expect(files.length).toBeGreaterThanOrEqual(3));
  for (const file of files) {
    it(file, async () => {
      const golden = parse(readFileSync(new URL(file, dir), "utf8")) as RolloutGolden;
      const run = new RolloutRun(golden);
      try {
        expect(golden.steps.flatMap((s) => run.step(s))).toEqual([]);
      } finally {
        await run.run.cluster.stop();
      }
    });
  }
});
