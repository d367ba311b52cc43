// The incident tier's heap leak (docs/incident-tier.md, load-heap-oom) on Train-Ticket, by hand:
// the oracle reads the container's command line, its limit and its pods' OOMKilled state and puts
// back the earlier revision's command line, at the full and the symptom level; noop and the
// runbook baseline fail (its undo takes the newest rollout, a benign one: the service's own
// logging change keeps the heap flag). The wrong fix (a restart): test/tiers/incident-leak.test.ts.
// Sources: FudanSELab/train-ticket ts-*-service/Dockerfile (CMD java -Xmx200m -jar, which a
// container's args replace); kubectl's rollout undo (kubectl/pkg/polymorphichelpers/rollback.go).
import { describe, expect, it } from "vitest";
import { runScenarios } from "../tiers/incident.js";

const run = (model: string, extra: string[] = []) =>
  runScenarios("train-ticket", ["load-heap-oom"], model, extra);

describe("load-heap-oom on Train-Ticket: a heap maximum above the memory limit", () => {
  it("the oracle puts back the earlier revision's command line; no OOM over the hold, at the full and symptom levels", async () => {
    for (const report of ["full", "symptom"]) {
      const [c] = await run("oracle", ["--report", report]);
      expect(c.status, `${report}: ${JSON.stringify(c.reason)}`).toBe("success");
      if (report === "full") expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
    }
  }, 2_400_000);

  it("noop and the runbook fail: the runbook's undo takes a benign rollout, the heap flag stays", async () => {
    for (const m of ["noop", "runbook"]) {
      const [c] = await run(m);
      expect(c.status, m).toBe("failure");
      // between two kills the pod serves: the checks may pass first, then the hold sees the kill
      expect(["ineffective", "not-held"], `${m}: ${JSON.stringify(c.reason)}`).toContain(c.reason?.code);
    }
  }, 2_400_000);
});
