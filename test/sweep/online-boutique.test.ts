// Online-Boutique's easy tier, every case, through the CLI: oracle 100%, noop 0%.
import { describe, expect, it } from "vitest";
import { runAll } from "../tiers/run-all.js";

describe("Online-Boutique, easy tier", () => {
  it("oracle repairs every case, noop none", async () => {
    const oracle = await runAll("online-boutique", "oracle", ["--tiers", "easy"]);
    expect(oracle.r.exitCode, String(oracle.r.stderr).slice(-2000)).toBe(0);
    expect(oracle.summary[0]).toMatchObject({ tier: "easy", cases: 23, evaluated: 23, successRate: 1 });
    const noop = await runAll("online-boutique", "noop", ["--tiers", "easy"]);
    expect(noop.summary[0]).toMatchObject({ tier: "easy", evaluated: 23, successRate: 0 });
  });
});
