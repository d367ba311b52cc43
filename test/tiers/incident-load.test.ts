// The load-and-time family of the incident tier (docs/incident-tier.md) through the CLI on the
// embedded cluster at --speed 600: the oracle repairs each scenario from what the agent reads
// (kubectl top, the Deployments and their ReplicaSets' earlier templates), noop and the runbook
// baseline do not (its undo takes the newest rollout, a red herring), and the family's tempting
// wrong fix fails for its stated reason:
//   load-surge  restarting the starved service: the same CPU limit under the same users, still
//               at its limit, its callers' deadlines still missed.
// Sources: Google SRE book ch. 22 (Addressing Cascading Failures: restarting servers adds no
// capacity); the kernel's CFS bandwidth control (Documentation/scheduler/sched-bwc.rst: a group
// past its quota waits for the next period); GoogleCloudPlatform/microservices-demo
// src/loadgenerator (locust -u ${USERS}); kubectl's rollout history (an earlier revision's
// template is its ReplicaSet's: kubectl/pkg/polymorphichelpers/history.go).
import { describe, expect, it } from "vitest";
import { playbook, RESTART_ALERT, runOne, runScenarios } from "./incident.js";

/** One scenario on a system with a built-in model, through `run`; its records. */
const runModel = (env: string, scenario: string, model: string, extra: string[] = []) =>
  runScenarios(env, [scenario], model, extra);

/** Restart the service the surge starves (a restart is what the hot pod's owner tries first). */
const RESTART = (svc: string) =>
  RESTART_ALERT.replaceAll("{{service}}", svc).replace("--timeout=120s", "--timeout=600s");

describe("load-surge on Online-Boutique: a surge on a CPU limit cut an hour before", () => {
  it("the oracle restores the earlier revision's CPU and the users' pages hold, at the full and symptom levels", async () => {
    for (const report of ["full", "symptom"]) {
      // at the symptom level the expert repair restarts the starved service first: a pod too new
      // for a metrics reading, whose revision still shows the cut
      const [c] = await runModel("online-boutique", "load-surge", "oracle", ["--report", report]);
      expect(c.status, `${report}: ${JSON.stringify(c.reason)}`).toBe("success");
      expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
    }
  }, 2_400_000);

  it("noop and the runbook fail: the runbook's undo takes the newest rollout, a benign one", async () => {
    for (const m of ["noop", "runbook"]) {
      const [c] = await runModel("online-boutique", "load-surge", m);
      expect(c.status, m).toBe("failure");
      expect(c.reason?.code, m).toBe("ineffective");
    }
  }, 2_400_000);

  it("lowering the users cures the saturation by turning them away: the demand check fails", async () => {
    const [c] = await runOne(
      "online-boutique",
      "load-surge",
      playbook(`
- name: back to ten users
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/loadgenerator USERS=10
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/loadgenerator --timeout=600s
`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/USERS=10: the users' load \(40\) was turned away/);
  }, 1_200_000);

  it("restarting the starved service leaves it at its limit under the same users", async () => {
    const [c] = await runOne("online-boutique", "load-surge", RESTART("productcatalogservice"));
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  }, 1_200_000);
});

describe("load-retry-storm on Train-Ticket: the gateway's retries keep a callee saturated after the trigger", () => {
  it("the oracle removes the retries an earlier revision did not have; the queue drains", async () => {
    for (const report of ["full", "symptom"]) {
      const [c] = await runModel("train-ticket", "load-retry-storm", "oracle", ["--report", report]);
      expect(c.status, `${report}: ${JSON.stringify(c.reason)}`).toBe("success");
      // at the symptom level the expert repair that runs first also changes Train-Ticket's
      // healthy parts (Services made, Deployments patched), so localization is checked at full
      if (report === "full") expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
    }
  }, 2_400_000);

  it("the runbook fails: its undo takes the newest rollout, a benign one", async () => {
    const [c] = await runModel("train-ticket", "load-retry-storm", "runbook");
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  }, 1_200_000);

  it("restarting the saturated service is a new trigger: the retries fill its two threads again", async () => {
    const [c] = await runOne("train-ticket", "load-retry-storm", RESTART("ts-travel-service"));
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  }, 1_200_000);
});
