// The report levels' sweep: every tier of Simple-Micro, the expert tier too, at the service and the
// symptom levels (`run-all ... --report <level>`): the oracle repairs every case, finding the
// faulty service itself at the symptom level, and localizes it; noop repairs none.
import { describe, expect, it } from "vitest";
import { runAll } from "../tiers/run-all.js";

const TIERS = ["easy", "medium", "hard", "expert"];

describe.each(["service", "symptom"])("Simple-Micro at --report %s", (level) => {
  it("oracle repairs every case of every tier", async () => {
    const { r, summary, dir } = await runAll("simple-micro", "oracle", [
      ...["--tiers", TIERS.join(","), "--report", level],
    ]);
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    expect(summary.map((s) => s.tier)).toEqual(TIERS);
    for (const s of summary) {
      expect(s.injectionFailures, s.tier).toBe(0);
      expect(s.successRate, `${s.tier}: see ${dir}`).toBe(1);
    }
  });

  it("noop repairs none", async () => {
    const { r, summary } = await runAll("simple-micro", "noop", [
      "--tiers",
      "easy,expert",
      "--report",
      level,
    ]);
    expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
    for (const s of summary) expect(s.successRate, s.tier).toBe(0);
  });
});
