// The herring family's newer scenarios (docs/incident-tier.md) through the CLI on the embedded
// cluster (Simple-Micro): each tempting wrong fix fails for its stated reason. (The oracle, from
// its detectors in models/oracle/herring.py, noop and the runbook run over every Simple-Micro
// scenario in test/tiers/incident.test.ts.)
//   herring-new-image   undoing the newest rollout (time-service's new image, which works): the
//                       Service renumbered forty minutes before still serves a port nobody dials;
//   herring-failed-job  clearing what is red (the failed Job deleted) and restarting the service
//                       whose calls fail: its new pod reads the same wrong value at start.
// Sources: kubectl/pkg/polymorphichelpers/rollback.go (rollout undo: the previous revision of the
// named Deployment only); pkg/proxy (a Service answers on `port`, forwarding to `targetPort`);
// pkg/kubelet/kubelet_pods.go makeEnvironmentVariables (configMapKeyRef resolved when the
// container starts, never after); pkg/controller/job (BackoffLimitExceeded: the Job fails, its
// pods stay in Error).
import { describe, expect, it } from "vitest";
import { playbook, runOne, UNDO_NEWEST } from "./incident.js";

describe("each scenario's wrong fix fails for its stated reason", () => {
  it("new-image: undoing the newest rollout (the new image) leaves the renumbered Service", async () => {
    const [c] = await runOne("simple-micro", "herring-new-image", UNDO_NEWEST);
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/users see failures/);
    expect(c.localization?.changed).toEqual(["patch deployments/time-service"]);
  });

  it("failed-job: deleting the failed Job and restarting the service leaves the value it reads at start", async () => {
    const [c] = await runOne(
      "simple-micro",
      "herring-failed-job",
      playbook(`
- name: clear the failed Job
  ansible.builtin.command: kubectl -n {{namespace}} delete job report-export
- name: restart the service whose calls fail
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/hello-service
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/hello-service --timeout=120s
`),
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR.*time-service:5002/);
  });
});
