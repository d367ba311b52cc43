// Through `microremed run` at the default speed, what a playbook reads of the clocks (docs/clock.md):
// the host's `date` against a container's, in each of three cases. The embedded cluster starts
// behind the wall clock by the time its fast phases will gain; it used to be the whole run's, so
// the first cases of a run read the host hours ahead of the cluster (every live run noticed
// describe's ages). The runner now asks before each case for that case's own lead only
// (src/runner/lead.ts caseLead, and methodLead before its method; src/kube/time.ts showLead), so
// every case's method reads the host no further ahead than the rest of its case's lead, and never
// behind.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/envs/env.js";
import { resolveConfig, withDefaults } from "../../src/runner/config.js";
import { methodLead, runLead } from "../../src/runner/lead.js";
import { checkBuilt, cli, ROOT, readCases, tmp, write } from "./cli-helpers.js";

beforeAll(checkBuilt);

const CASES = 3;

describe("a run at speed 60, case after case", () => {
  it("shows each case the host's clock at most one case's lead ahead of the cluster's", async () => {
    const dir = tmp("mr-rebase-run-");
    const exp = write(
      dir,
      "exp.yaml",
      `cases:\n${"  - {failure: pod-fail, target: time-service}\n".repeat(CASES)}`,
    );
    const r = await cli(
      [
        "run",
        "--env",
        "simple-micro",
        "--model",
        `scripted:${join(ROOT, "test/cli/fixtures/clock/skew.yaml")}`,
        "--remediate-method",
        "SoloGen",
        "--experiment-path",
        exp,
        "--save-path",
        dir,
        "--run-name",
        "skew",
        "--speed",
        "60",
      ],
      { timeout: 600_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const cases = readCases(join(dir, "skew"));
    expect(cases).toHaveLength(CASES);
    const cfg = resolveConfig(
      withDefaults({ env: "simple-micro", model: "noop", experimentPath: exp, speed: 60 }),
    );
    const plan = Array.from({ length: CASES }, (_, i) => ({
      index: i + 1,
      faults: [{ failure: "pod-fail", target: "time-service" }],
    }));
    // the method reads after the second re-base of its case: the rest of the case's lead
    const own = methodLead(cfg, plan[0], loadEnv("simple-micro").readyTimeoutSeconds);
    // what the whole run would have needed from its start: more than twice one case's
    expect(runLead([{ cfg: { ...cfg, parallel: 2 }, plan }])).toBeGreaterThan(2 * own);
    for (let i = 1; i <= CASES; i++) {
      const log = readFileSync(join(dir, "skew", `case-00${i}`, "playbook-1.log"), "utf8");
      const skew = Number(/SKEW=(-?\d+)/.exec(log)?.[1]);
      expect(skew, `case ${i}: ${log.slice(-400)}`).toBeGreaterThanOrEqual(0);
      // (date +%s reads whole seconds on both sides)
      expect(skew * 1000, `case ${i}`).toBeLessThanOrEqual(own + 2_000);
    }
  }, 660_000);
});
