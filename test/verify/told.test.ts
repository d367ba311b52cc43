// What the Verification agent tells a method: the whole verdict where the report names the faulty
// service, what users and the namespace show where it does not (an alert, an incident's report).
import { describe, expect, it } from "vitest";
import { namesCauses, toldReason, toldScorer, UNNAMED_CAUSE } from "../../src/verify/told.js";
import type { Score } from "../../src/verify/types.js";

const v = (pass: boolean, reason: string) => ({ pass, reason, measurements: {} });
const score = (parts: Partial<Score>): Score => ({
  pass: false,
  reason: "Service cart-cache has no endpoints",
  measurements: {},
  reference: v(false, "Service cart-cache has no endpoints"),
  health: v(true, "every pod is Ready"),
  ...parts,
});

describe("toldReason", () => {
  it("names which report levels hear the faults' own checks", () => {
    expect(namesCauses({ level: "full" })).toBe(true);
    expect(namesCauses({ level: "service" })).toBe(true);
    expect(namesCauses({})).toBe(true);
    expect(namesCauses({ level: "symptom" })).toBe(false);
    expect(namesCauses({ level: "full", incident: true })).toBe(false);
  });

  it("says what users see first, then the namespace's health, and never the cause's check", () => {
    expect(toldReason(score({ user: v(false, "users see failures: cart 3 of 3 failed (500)") }))).toBe(
      "users see failures: cart 3 of 3 failed (500)",
    );
    expect(toldReason(score({ health: v(false, "pod shop-1 is not Ready") }))).toBe(
      "pod shop-1 is not Ready",
    );
    expect(toldReason(score({}))).toBe(UNNAMED_CAUSE);
    expect(toldReason(score({}))).not.toContain("cart-cache");
  });

  it("keeps when the hold broke, with the told reason", () => {
    const s = score({ held: { ms: 1800_000, failedAtMs: 600_000 } });
    expect(toldReason(s)).toBe(`the checks passed, then failed 600 s into the 1800 s hold: ${UNNAMED_CAUSE}`);
  });

  it("passes a passing verdict through, and leaves a report that names the service untouched", async () => {
    const pass = score({ pass: true, reason: "all checks pass" });
    expect(toldReason(pass)).toBe("all checks pass");
    const inner = { score: async () => score({}) };
    expect(toldScorer(inner, { level: "full" })).toBe(inner);
    const told = await toldScorer(inner, { level: "full", incident: true }).score();
    expect(told.reason).toBe("Service cart-cache has no endpoints");
    expect(told.told).toBe(UNNAMED_CAUSE);
  });
});
