// In the sweep (by hand), not the tier lane: the tier lane keeps each family's wrong fixes within
// CI's 45 minutes, and this scenario's family has its own there.
// load-hpa-capacity (docs/incident-tier.md) through the CLI on the embedded cluster at --speed 600:
// the tempting wrong fixes fail for their stated reasons (the oracle, noop and the runbook over
// Online-Boutique: test/sweep/incident.test.ts):
//   scale by hand     `kubectl scale` of the Deployment under an HPA: the HPA sets its replicas back
//                     to its maximum at its next sync (15 s);
//   maximum alone     the HPA's maxReplicas raised with the quota left as it is: the pods it asks
//                     for are refused at admission (FailedCreate "exceeded quota"), it stays at two;
//   restart           a rolling restart of the saturated service: its surge pod is refused by the
//                     quota, the old pods keep serving at their limit.
// Sources: kubernetes pkg/controller/podautoscaler/horizontal.go (normalizeDesiredReplicas: a
// scale outside [minReplicas, maxReplicas] set back; desired = ceil(current x utilization /
// target), replica_calculator.go); plugin/pkg/admission/resourcequota/controller.go ("exceeded
// quota: ..., requested: ..., used: ..., limited: ..."); pkg/controller/replicaset (FailedCreate);
// kubectl's rollout restart (a template annotation: a new ReplicaSet, one surge pod at a time).
import { describe, expect, it } from "vitest";
import { playbook, runOne } from "../tiers/incident.js";

const OB = "online-boutique";
const SCENARIO = "load-hpa-capacity";

describe("load-hpa-capacity on Online-Boutique: a surge on currencyservice held at its HPA's maximum under a quota", () => {
  it("scaling the Deployment by hand is undone by the HPA at its next sync", async () => {
    const [c] = await runOne(
      OB,
      SCENARIO,
      playbook(`
- name: scale currencyservice out
  ansible.builtin.command: kubectl -n {{namespace}} scale deployment/currencyservice --replicas=6
`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/currencyservice-[a-z0-9-]+\/server throttled in \d+ of \d+ periods/);
  }, 1_200_000);

  it("raising the HPA's maximum alone: the quota refuses the pods it asks for", async () => {
    const [c] = await runOne(
      OB,
      SCENARIO,
      playbook(`
- name: raise currencyservice's autoscaling maximum
  ansible.builtin.command: kubectl -n {{namespace}} patch hpa currencyservice --type merge -p '{"spec":{"maxReplicas":10}}'
`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    // the HPA asked for more replicas than were admitted: two of them serve
    expect(c.reason?.detail).toMatch(
      /currencyservice is not serving as deployed: 2\/\d+ updated, 2\/\d+ ready/,
    );
  }, 1_200_000);

  it("restarting the saturated service adds no capacity: its surge pod is refused", async () => {
    const [c] = await runOne(
      OB,
      SCENARIO,
      playbook(`
- name: restart currencyservice
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/currencyservice
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/currencyservice --timeout=120s
  ignore_errors: true
`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
  }, 1_200_000);
});
