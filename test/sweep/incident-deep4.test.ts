// In the sweep (by hand), not the tier lane: the scenario does not run on Simple-Micro, and the
// tier lane's time is spent.
// multi-four-masked (docs/incident-tier.md) through the CLI on the embedded cluster at --speed 600,
// on Online-Boutique: four causes on checkout's path, each hiding the next, and the fixes a model
// that follows the errors makes one after another, each failing for its stated reason (the oracle,
// noop and the runbook over both systems: test/sweep/incident.test.ts):
//   cause 1       shippingservice's Service made again (what the frontend's error names): the
//                 quote passes, the charge dials paymentservice:5050, a port its Service does not
//                 serve (ineffective);
//   causes 1-2    and checkoutservice's payment address set to 50051: paymentservice's
//                 NetworkPolicy admits app=checkout only, so the charge is refused (ineffective;
//                 at --speed 600 the sync's run has also put 5050 back before the verdict);
//   causes 1-3    and the policy admitting checkoutservice: the defaults-sync CronJob's next run
//                 (every 5 minutes) sets 5050 back from checkoutservice-defaults (not-held, or
//                 ineffective when its run came before the first verdict).
//   all but 3     the Service, the port and the sync suspended: the policy alone still refuses
//                 checkoutservice's calls (connection refused), so the third cause is one.
// Sources: the CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go: a Job per
// schedule time, none while suspended); kubectl set env (staging/src/k8s.io/kubectl/pkg/cmd/set/
// set_env.go); kube-router's network policy controller (pkg/controllers/netpol: a pod selected by
// an Ingress policy REJECTs what no rule admits); ITBench (several root-cause entities along a
// propagation chain); SREGym (concurrent failures; fixes the cluster's own automation reverts).
import { describe, expect, it } from "vitest";
import { playbook, runOne } from "../tiers/incident.js";

const OB = "online-boutique";
const SCENARIO = "multi-four-masked";

/** Cause 1: shippingservice's Service made again, as it was deployed. */
const SERVICE = `
- name: make the missing Service again
  ansible.builtin.command: kubectl -n {{namespace}} create service clusterip shippingservice --tcp=50051:50051
`;

/** Cause 2: checkoutservice's payment address set to the port paymentservice serves. */
const PORT = `
- name: set the payment address right
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/checkoutservice -c server PAYMENT_SERVICE_ADDR=paymentservice:50051
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/checkoutservice --timeout=120s
`;

/** Cause 4: the sync stopped. */
const SYNC = `
- name: stop the sync
  ansible.builtin.command: kubectl -n {{namespace}} patch cronjob defaults-sync -p '{"spec":{"suspend":true}}'
`;

/** Cause 3: paymentservice's policy admitting checkoutservice's pods too. */
const POLICY = `
- name: admit checkoutservice to paymentservice
  ansible.builtin.command: >-
    kubectl -n {{namespace}} patch networkpolicy paymentservice --type json
    -p '[{"op":"add","path":"/spec/ingress/0/from/0/podSelector/matchExpressions/0/values/-","value":"checkoutservice"}]'
`;

describe("multi-four-masked on Online-Boutique: the fixes the errors lead to, one at a time, fail", () => {
  it("the Service alone: the charge then dials a port paymentservice does not serve", async () => {
    const [c] = await runOne(OB, SCENARIO, playbook(SERVICE));
    expect(c.status).toBe("failure");
    expect(c.reason?.code, JSON.stringify(c.reason)).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/PAYMENT_SERVICE_ADDR|checkout/);
  }, 1_200_000);

  it("the Service and the port: paymentservice's policy refuses checkoutservice", async () => {
    const [c] = await runOne(OB, SCENARIO, playbook(`${SERVICE}${PORT}`));
    expect(c.status).toBe("failure");
    expect(c.reason?.code, JSON.stringify(c.reason)).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/PAYMENT_SERVICE_ADDR|checkout/);
  }, 1_200_000);

  it("the Service, the port and the policy: the sync's next run puts the port back", async () => {
    const [c] = await runOne(OB, SCENARIO, playbook(`${SERVICE}${PORT}${POLICY}`));
    expect(c.status).toBe("failure");
    // after the checks first passed (not-held), or, where its 5-minute period is half a second of
    // wall time, before the first verdict (ineffective)
    expect(["not-held", "ineffective"]).toContain(c.reason?.code);
    expect(c.reason?.detail).toMatch(/PAYMENT_SERVICE_ADDR|checkout/);
  }, 1_200_000);

  it("all but the policy: paymentservice still refuses checkoutservice's calls", async () => {
    const [c] = await runOne(OB, SCENARIO, playbook(`${SERVICE}${SYNC}${PORT}`));
    expect(c.status).toBe("failure");
    expect(c.reason?.code, JSON.stringify(c.reason)).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/paymentservice:50051 \(PAYMENT_SERVICE_ADDR\): connection refused/);
  }, 1_200_000);
});
