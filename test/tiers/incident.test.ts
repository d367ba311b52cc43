// The incident tier's fairness on Simple-Micro (oracle all, noop none, runbook none), and each
// family's tempting wrong fix failing for its stated reason (the far family on Online-Boutique:
// Simple-Micro has no service two calls behind its entry). Helpers: test/tiers/incident.ts.
import { describe, expect, it } from "vitest";
import { incidentFairness, ONE_OF_TWO, RESTART_ALERT, runOne, UNDO_NEWEST } from "./incident.js";

incidentFairness("simple-micro");

describe("each family's wrong fix fails for its stated reason", () => {
  it("multi: fixing one of two causes leaves the other, and the users' requests fail", async () => {
    const [c] = await runOne("simple-micro", "multi-masked", ONE_OF_TWO);
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR/);
    expect(c.reason?.detail).not.toMatch(/Service time-service is gone/);
  });

  it("herring: undoing the newest rollout undoes a benign one; the older deploy stays", async () => {
    const [c] = await runOne("simple-micro", "herring-old-change", UNDO_NEWEST);
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/hello-service's calls through TIME_SERVICE_ADDR/);
  });

  it("far: restarting the healthy alerting service leaves the Service behind it sending its port nowhere", async () => {
    const [c] = await runOne("online-boutique", "far-targetport", RESTART_ALERT);
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/paymentservice's Service does not reach its pods/);
  });
});
