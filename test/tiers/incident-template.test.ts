// Fairness of the template family's incidents and the store's runtime limit (docs/incident-tier.md),
// through the CLI on the embedded cluster: the oracle repairs each from what the agent can read
// (its detectors, models/oracle/template.py: a LimitRange's maximum against what the Deployments
// declare, a ResourceQuota against what they need, redis-cli CONFIG GET / INFO memory in the
// store), noop and the runbook none, and each tempting wrong fix fails for its stated reason:
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
import { playbook, runOne, runScenarios } from "./incident.js";

const SM = ["template-limitrange", "template-quota"];

/** The scenarios on a system with a model (oracle, noop, runbook, scripted:<file>), through `run`. */
const run = (env: string, scenarios: string[], model: string) => runScenarios(env, scenarios, model);

const scripted = (env: string, scenario: string, tasks: string) => runOne(env, scenario, playbook(tasks));

describe("the template family on Simple-Micro", () => {
  it("the oracle repairs each from what the namespace shows, changing the cause and no workload", async () => {
    const cases = await run("simple-micro", SM, "oracle");
    expect(cases.map((c) => c.status)).toEqual(["success", "success"]);
    for (const c of cases) expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
  });

  it("noop repairs none: the evicted pod's replacement stays refused", async () => {
    const cases = await run("simple-micro", SM, "noop");
    expect(cases.map((c) => c.status)).toEqual(["failure", "failure"]);
  });

  it("the runbook repairs none: restarting and undoing what is not Ready makes pods admission refuses", async () => {
    // one run each: the runbook's rollout waits never end here, and at speed 600 they spend the
    // run's clock lead (the cluster then follows the wall clock, and a second story's waits are real)
    for (const scenario of SM) {
      const [c] = await run("simple-micro", [scenario], "runbook");
      expect(c.status, scenario).toBe("failure");
      expect(c.reason?.code, scenario).toBe("ineffective");
    }
  });
});

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

  it("store: the oracle repairs it at the store (CONFIG SET), noop does not", async () => {
    const [o] = await run("online-boutique", ["far-store-maxmemory"], "oracle");
    expect(o.status, JSON.stringify(o.reason)).toBe("success");
    const [n] = await run("online-boutique", ["far-store-maxmemory"], "noop");
    expect(n.status).toBe("failure");
  });
});
