// The embedded cluster's lead is sized to what is ahead (src/runner/lead.ts, docs/clock.md): none
// at speed 1; one case's own before each case when cases run one at a time, and the whole run's
// when they run side by side; more for longer windows, and far below the speed's own default for a
// short run, since the lead is what a model reads as the gap between the host's clock (kubectl
// describe's ages) and the cluster's.
import { describe, expect, it } from "vitest";
import { resolveConfig, withDefaults } from "../../src/runner/config.js";
import { caseLead, methodLead, rebasesPerCase, runLead } from "../../src/runner/lead.js";
import type { PreparedRun } from "../../src/runner/run.js";

const HOUR = 3_600_000;

function prepared(cases: number, over: Record<string, unknown> = {}): PreparedRun {
  const cfg = resolveConfig(
    withDefaults({ env: "simple-micro", model: "noop", experimentPath: "experiments/easy.txt", ...over }),
  );
  const plan = Array.from({ length: cases }, (_, i) => ({ index: i + 1, faults: [] }));
  return { cfg, plan } as unknown as PreparedRun;
}

describe("runLead", () => {
  it("is none at speed 1", () => {
    expect(runLead([prepared(50, { speed: 1 })])).toBe(0);
  });

  it("grows with the cases, their windows and their attempts when cases run side by side", () => {
    const one = runLead([prepared(2, { speed: 60, parallel: 2 })]);
    const fifty = runLead([prepared(50, { speed: 60, parallel: 2 })]);
    expect(fifty).toBeGreaterThan(one * 10);
    expect(runLead([prepared(50, { speed: 60, parallel: 2, hold: 600 })])).toBeGreaterThan(fifty);
    expect(runLead([prepared(50, { speed: 60, parallel: 2, maxAttempts: 3 })])).toBeGreaterThan(fifty);
    expect(
      runLead([prepared(50, { speed: 60, parallel: 2 }), prepared(50, { speed: 60, parallel: 2 })]),
    ).toBe(2 * fifty);
  });

  it("is the deploys' when cases run one at a time: each case is given its own, before it and before its method", () => {
    const run = prepared(50, { speed: 60 });
    expect(rebasesPerCase(run.cfg)).toBe(true);
    expect(rebasesPerCase(prepared(50, { speed: 60, parallel: 2 }).cfg)).toBe(false);
    expect(runLead([run])).toBe(runLead([prepared(1, { speed: 60 })]));
    expect(runLead([run])).toBeLessThan(runLead([prepared(2, { speed: 60, parallel: 2 })]));
    const before = caseLead(run.cfg, run.plan[0]);
    const rest = methodLead(run.cfg, run.plan[0]);
    expect(before).toBeGreaterThan(0);
    expect(rest).toBeGreaterThan(0);
    // the checks' windows are the method's part
    expect(methodLead(prepared(1, { speed: 60, hold: 600 }).cfg, run.plan[0])).toBeGreaterThan(rest);
    expect(methodLead(prepared(1, { speed: 60, maxAttempts: 3 }).cfg, run.plan[0])).toBeGreaterThan(rest);
    // each attempt's checks may wait for the system's ready timeout, as the reset before the case
    expect(methodLead(run.cfg, run.plan[0], 300) - rest).toBe(Math.round(300_000 * (59 / 60)));
    expect(caseLead(run.cfg, run.plan[0], 300) - before).toBe(Math.round(300_000 * (59 / 60)));
    expect(caseLead(prepared(1, { speed: 60, hold: 600 }).cfg, run.plan[0])).toBe(before);
    expect(caseLead(prepared(1, { speed: 1 }).cfg, run.plan[0])).toBe(0);
    expect(methodLead(prepared(1, { speed: 1 }).cfg, run.plan[0])).toBe(0);
  });

  it("is an hour or less for one case, where the speed's default was 29.5 h", () => {
    expect(runLead([prepared(1, { speed: 60 })])).toBeLessThan(HOUR);
  });

  it("keeps the speed's own lead above the default speed, where a wall second of waiting costs F", () => {
    expect(runLead([prepared(1, { speed: 600 })])).toBe(599 * 30 * 60_000);
  });

  it("counts an incident's story before its method, its waits as they are: an hour-old cause is not made at speed 1", () => {
    const run = prepared(1, { speed: 60 });
    const plain = caseLead(run.cfg, run.plan[0]);
    const incident = { index: 1, faults: [{ failure: "load-surge", target: "frontend" }] };
    // the scenario waits 20 minutes (chaos/incidents.yaml), known to the second so given no room,
    // and its own confirm window
    const story = caseLead(run.cfg, incident) - plain;
    expect(story).toBeGreaterThan(20 * 60_000 * (59 / 60));
    expect(story).toBeLessThan(30 * 60_000);
    const shared = prepared(1, { speed: 60, parallel: 2 });
    shared.plan[0].faults = incident.faults;
    expect(runLead([shared]) - runLead([prepared(1, { speed: 60, parallel: 2 })])).toBeGreaterThan(
      20 * 60_000 * (59 / 60),
    );
  });
});
