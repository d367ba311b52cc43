// multi-three-revert's tempting wrong fixes (docs/incident-tier.md), on Simple-Micro through
// `microremed run` on the embedded cluster; the oracle, noop and the runbook over it are
// Simple-Micro's fairness run (test/tiers/incident.test.ts) and the sweep (test/sweep/incident.test.ts):
//   the Service only          time-service's Service made again: hello-service still dials 5002;
//   the Service and the port  hello-service's address set right too: the platform-sync CronJob's
//                             next run (every 10 minutes) sets 5002 back from hello-service-defaults
//                             within the hold (2100 s, three and a half of its periods).
// Sources: the CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go: a Job per
// schedule time, none while suspended), kubectl set env
// (staging/src/k8s.io/kubectl/pkg/cmd/set/set_env.go: the template patched with what differs),
// ITBench (several root-cause entities), SREGym (concurrent failures; fixes reverted by the
// cluster's own automation).
import { describe, expect, it } from "vitest";
import { playbook, runOne } from "./incident.js";

/** time-service's Service made again, as it was deployed. */
const SERVICE = `
- name: make the missing Service again
  ansible.builtin.command: kubectl -n {{namespace}} create service clusterip time-service --tcp=5001:5001
`;

/** hello-service's address set to the port time-service serves. */
const PORT = `
- name: set the address right
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/hello-service TIME_SERVICE_ADDR=time-service:5001
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/hello-service --timeout=120s
`;

describe("multi-three-revert's wrong fixes fail for their stated reasons", () => {
  it("the Service alone: the caller's wrong port still fails its calls", async () => {
    const [c] = await runOne("simple-micro", "multi-three-revert", playbook(SERVICE));
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/TIME_SERVICE_ADDR/);
  });

  it("the Service and the port: the CronJob's next run puts the port back within the hold", async () => {
    const [c] = await runOne("simple-micro", "multi-three-revert", playbook(`${SERVICE}${PORT}`));
    expect(c.status).toBe("failure");
    // the checks passed at first (the verdict right after the fix), then failed at the sync's run
    expect(c.reason?.code).toBe("not-held");
    const at = /failed (\d+) s into the 2100 s hold/.exec(String(c.reason?.detail));
    expect(at, c.reason?.detail).not.toBeNull();
    expect(Number(at![1])).toBeLessThanOrEqual(600);
  });
});
