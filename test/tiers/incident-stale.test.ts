// template-stale-replica (docs/incident-tier.md) through the CLI on the embedded cluster
// (Simple-Micro): each tempting wrong fix fails for its stated reason. (The oracle, from its
// detector in models/oracle/stale.py, noop and the runbook run over every Simple-Micro scenario in
// test/tiers/incident.test.ts; Online-Boutique and Train-Ticket in test/sweep/incident.test.ts.)
//   re-applying the ConfigMap  it already holds the right value; the stale pod never reads it
//                              again, so one pod of three still dials the old port;
//   undoing the newest rollout the benign one (time-service's): hello-service's pods stay as
//                              they are.
// Sources: kubernetes pkg/kubelet/kubelet_pods.go makeEnvironmentVariables (configMapKeyRef
// resolved when the container is created, never after); kubectl/pkg/polymorphichelpers/rollback.go
// (rollout undo: the previous revision of the named Deployment only); pkg/proxy/iptables/proxier.go
// (a Service's connections spread over its endpoints at random: one bad pod of three fails about
// one request in three).
import { describe, expect, it } from "vitest";
import { playbook, runOne, UNDO_NEWEST } from "./incident.js";

describe("template-stale-replica's wrong fixes fail for their stated reasons", () => {
  it("re-applying the ConfigMap, already right, leaves the pod that read the old value", async () => {
    const [c] = await runOne(
      "simple-micro",
      "template-stale-replica",
      playbook(`
- name: apply the settings ConfigMap again
  ansible.builtin.shell: >-
    kubectl -n {{namespace}} create configmap hello-service-settings
    --from-literal=TIME_SERVICE_ADDR=time-service:5001 --dry-run=client -o yaml
    | kubectl -n {{namespace}} apply -f -
`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    // one pod of the three still dials the port from before the correction
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR.*time-service:5002/);
    expect(c.localization?.changed).toEqual(["patch configmaps/hello-service-settings"]);
  });

  it("undoing the newest rollout (the benign one) leaves the stale pod", async () => {
    const [c] = await runOne("simple-micro", "template-stale-replica", UNDO_NEWEST);
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR.*time-service:5002/);
    expect(c.localization?.changed).toEqual(["patch deployments/time-service"]);
  });
});
