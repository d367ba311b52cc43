// multi-three-revert's tempting wrong fixes (docs/incident-tier.md), on Online-Boutique through
// `microremed run` on the embedded cluster (Simple-Micro has no callee with two callers, so it does
// not list the scenario), and the oracle once; noop and the runbook over it are the sweep's
// (test/sweep/incident.test.ts):
//   the Service only          shippingservice's Service made again: checkoutservice still dials 50052;
//   the Service and the port  checkoutservice's address set right too: the defaults-sync CronJob's
//                             next run (every 10 minutes) sets 50052 back from checkoutservice-defaults,
//                             after the checks first passed, within the hold (2100 s, three and a half
//                             of its periods).
// Sources: the CronJob controller (pkg/controller/cronjob/cronjob_controllerv2.go: a Job per
// schedule time, none while suspended), kubectl set env
// (staging/src/k8s.io/kubectl/pkg/cmd/set/set_env.go: the template patched with what differs),
// ITBench (several root-cause entities), SREGym (concurrent failures; fixes reverted by the
// cluster's own automation).
import { describe, expect, it } from "vitest";
import { playbook, runOne, runScenarios } from "./incident.js";

const ENV = "online-boutique";
const ID = "multi-three-revert";

/** shippingservice's Service made again, as it was deployed. */
const SERVICE = `
- name: make the missing Service again
  ansible.builtin.command: kubectl -n {{namespace}} create service clusterip shippingservice --tcp=50051:50051
`;

/** checkoutservice's address set to the port shippingservice serves. */
const PORT = `
- name: set the address right
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/checkoutservice SHIPPING_SERVICE_ADDR=shippingservice:50051
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/checkoutservice --timeout=120s
`;

describe("multi-three-revert on Online-Boutique", () => {
  it("the Service alone: the caller's wrong port still fails its calls", async () => {
    const [c] = await runOne(ENV, ID, playbook(SERVICE));
    expect(c.status).toBe("failure");
    expect(c.reason?.code).toBe("ineffective");
    expect(c.reason?.detail).toMatch(/SHIPPING_SERVICE_ADDR/);
  });

  it("the Service and the port: the CronJob's next run puts the port back within the hold", async () => {
    const [c] = await runOne(ENV, ID, playbook(`${SERVICE}${PORT}`));
    expect(c.status).toBe("failure");
    // the sync's run puts 50052 back: after the checks first passed (not-held, "failed N s into
    // the hold"), or, at --speed 600 where its 10-minute period is a second of wall time, before
    // the first verdict (ineffective: the checkout fails while checkoutservice rolls back to 50052)
    expect(["not-held", "ineffective"]).toContain(c.reason?.code);
    expect(c.reason?.detail).toMatch(/SHIPPING_SERVICE_ADDR|checkout/);
    // the oracle's difference from this fix is the CronJob suspended (below)
  });

  it("the oracle finds and fixes the three: the Service, the port, the CronJob", async () => {
    const [c] = await runScenarios(ENV, [ID], "oracle");
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
    expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
  });
});
