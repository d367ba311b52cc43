// The load-and-time family of the incident tier (docs/incident-tier.md) through the CLI on the
// embedded cluster at --speed 600: the family's tempting wrong fixes fail for their stated reasons
// (the oracle, noop and the runbook on these systems: the by-hand sweep, test/sweep/incident.test.ts):
//   load-surge  restarting the starved service: the same CPU limit under the same users, still
//               at its limit, its callers' deadlines still missed.
// Sources: Google SRE book ch. 22 (Addressing Cascading Failures: restarting servers adds no
// capacity); the kernel's CFS bandwidth control (Documentation/scheduler/sched-bwc.rst: a group
// past its quota waits for the next period); GoogleCloudPlatform/microservices-demo
// src/loadgenerator (locust -u ${USERS}); kubectl's rollout history (an earlier revision's
// template is its ReplicaSet's: kubectl/pkg/polymorphichelpers/history.go).
import { describe, expect, it } from "vitest";
import { playbook, RESTART_ALERT, runOne } from "./incident.js";

/** Restart the service the surge starves (a restart is what the hot pod's owner tries first). */
const RESTART = (svc: string) =>
  RESTART_ALERT.replaceAll("{{service}}", svc).replace("--timeout=120s", "--timeout=600s");

describe("load-surge on Online-Boutique: a surge on a CPU limit cut an hour before", () => {
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
  it("restarting the saturated service is a new trigger: the retries fill its two threads again", async () => {
    const [c] = await runOne("train-ticket", "load-retry-storm", RESTART("ts-travel-service"));
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  }, 1_200_000);
});
