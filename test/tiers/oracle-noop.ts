// One system's tiers through the CLI, oracle and noop: every case of each tier evaluated, the
// oracle repairs all, noop none. The easy tiers of Online-Boutique and Train-Ticket run in the
// tier lane (CI); their medium and hard tiers in the sweep (by hand).
import { describe, expect, it } from "vitest";
import { runAll } from "./run-all.js";

const SIZES: Record<string, number> = { easy: 23, medium: 49, hard: 80 };

export function oracleAndNoop(env: string, tiers: string[]) {
  describe(`${env}, ${tiers.join(" and ")}`, () => {
    it("oracle repairs every case, noop none", async () => {
      const oracle = await runAll(env, "oracle", ["--tiers", tiers.join(",")]);
      expect(oracle.r.exitCode, String(oracle.r.stderr).slice(-2000)).toBe(0);
      expect(oracle.summary.map((s) => s.tier)).toEqual(tiers);
      for (const s of oracle.summary) {
        expect(s.injectionFailures, s.tier).toBe(0);
        expect(s.evaluated, s.tier).toBe(SIZES[s.tier]);
        expect(s.successRate, `${s.tier}: see ${oracle.dir}`).toBe(1);
      }
      const noop = await runAll(env, "noop", ["--tiers", tiers.join(",")]);
      expect(noop.r.exitCode, String(noop.r.stderr).slice(-2000)).toBe(0);
      for (const s of noop.summary) {
        expect(s.evaluated, s.tier).toBe(SIZES[s.tier]);
        expect(s.successRate, `${s.tier}: see ${noop.dir}`).toBe(0);
      }
    });
  });
}
