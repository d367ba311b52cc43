// Fairness of the template family's incidents and the store's runtime limit (docs/incident-tier.md),
// through the CLI on the embedded cluster: each tempting wrong fix fails for its stated reason (the
// oracle, models/oracle/template.py, noop and the runbook: Simple-Micro's in
// test/tiers/incident.test.ts, the other systems' in the by-hand sweep):
//   template-limitrange  restarting the service without a pod (and another): the LimitRange refuses
//                        the new pods too, a restart makes it worse;
//   template-quota       undoing the newest rollout (the stalled, benign one): the quota stays and
//                        the evicted pod's replacement is still refused;
//   far-store-maxmemory  restarting the cart service whose logs show the errors: the store still
//                        refuses its writes.
// Sources: kubernetes plugin/pkg/admission/limitranger/admission.go and
// plugin/pkg/admission/resourcequota/controller.go (admission only at create: running pods stay;
// refusals as the ReplicaSet's FailedCreate, pkg/controller/replicaset); redis src/server.c
// processCommand (CMD_DENYOOM commands refused over maxmemory under noeviction), src/config.c
// (CONFIG SET is runtime state, lost at restart).
import { describe, expect, it } from "vitest";
import { playbook, runOne } from "./incident.js";

const scripted = (env: string, scenario: string, tasks: string) => runOne(env, scenario, playbook(tasks));

describe("each scenario's wrong fix fails for its stated reason", () => {
  it("limitrange: restarting makes it worse, the new pods are refused too", async () => {
    const [c] = await scripted(
      "simple-micro",
      "template-limitrange",
      `
- name: restart the service that has no pod
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/hello-service
- name: and the other one, for good measure
  ansible.builtin.command: kubectl -n {{namespace}} delete pod -l app=time-service --wait=false`,
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/hello-service is not serving as deployed/);
  });

  it("quota: undoing the newest rollout (the stalled one) leaves the quota, and the replacement refused", async () => {
    const [c] = await scripted(
      "simple-micro",
      "template-quota",
      `
- name: undo the newest rollout
  ansible.builtin.command: kubectl -n {{namespace}} rollout undo deployment/time-service`,
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/hello-service is not serving as deployed/);
  });

  it("store: restarting the cart service whose logs show the errors leaves the store refusing writes", async () => {
    const [c] = await scripted(
      "online-boutique",
      "far-store-maxmemory",
      `
- name: restart the cart service
  ansible.builtin.command: kubectl -n {{namespace}} rollout restart deployment/cartservice
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/cartservice --timeout=300s`,
    );
    expect(c.status).toBe("failure");
    expect(c.reason?.detail).toMatch(/add-to-cart/);
  });
});
