// In the sweep (by hand), not the tier lane: the scenario runs on Online-Boutique only (the one
// system whose store's Service a rename can move), and the tier lane keeps to Simple-Micro.
// herring-needed-change (docs/incident-tier.md) through the CLI on the embedded cluster at
// --speed 600: the blind fixes fail for their stated reasons, and the canonical fix holds (the
// oracle, noop and the runbook over Online-Boutique: test/sweep/incident.test.ts):
//   undo the newest   `kubectl rollout undo` of cartservice, the newest rollout: it dials the cart
//                     store's old Service name again, which was deleted with the rename (NXDOMAIN),
//                     so every page that reads the cart fails, and the cause stays;
//   oldest for all    every Deployment back to its oldest recorded revision (what a strong model's
//                     sweep playbook did under SoloGen): the cause goes, and so does the rename's
//                     client side, so the cart fails the same way;
//   canonical         checkoutservice's PAYMENT_SERVICE_ADDR set back to paymentservice, the rename
//                     left as it is.
// Sources: kubectl rollout undo (pkg/polymorphichelpers/rollback.go: the previous revision's
// template); Kubernetes DNS for Services (a deleted Service's name answers NXDOMAIN);
// microservices-demo src/checkoutservice (PaymentService dialed at PAYMENT_SERVICE_ADDR) and
// src/cartservice (the store at REDIS_ADDR).
import { describe, expect, it } from "vitest";
import { playbook, runOne } from "../tiers/incident.js";

const OB = "online-boutique";
const SCENARIO = "herring-needed-change";

/** The blind fixes, each failing because the cart reads a name the rename deleted. */
const WRONG_FIXES: [string, string][] = [
  [
    "undoing the newest rollout points the cart at a deleted name and leaves the cause",
    `
- name: undo the newest rollout
  ansible.builtin.command: kubectl -n {{namespace}} rollout undo deployment/cartservice
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/cartservice --timeout=180s
`,
  ],
  [
    "every Deployment back to its oldest revision undoes the cause and breaks the cart",
    `
- name: every Deployment back to its oldest revision
  ansible.builtin.shell: |
    for d in $(kubectl -n {{namespace}} get deploy -o jsonpath='{.items[*].metadata.name}'); do
      oldest=$(kubectl -n {{namespace}} rollout history deployment/$d | awk 'NR>2 && $1 ~ /^[0-9]+$/ {print $1; exit}')
      [ -n "$oldest" ] && kubectl -n {{namespace}} rollout undo deployment/$d --to-revision=$oldest || true
    done
- name: wait for them
  ansible.builtin.shell: |
    for d in $(kubectl -n {{namespace}} get deploy -o jsonpath='{.items[*].metadata.name}'); do
      kubectl -n {{namespace}} rollout status deployment/$d --timeout=180s
    done
`,
  ],
];

describe("herring-needed-change on Online-Boutique: an old wrong address, and a newer rename that must stay", () => {
  for (const [title, tasks] of WRONG_FIXES)
    it(title, async () => {
      const [c] = await runOne(OB, SCENARIO, playbook(tasks));
      expect(c.status).toBe("failure");
      expect(["ineffective", "not-held", "collateral"]).toContain(c.reason?.code);
    }, 1_200_000);

  it("the caller's address set back, the rename left: repaired", async () => {
    const [c] = await runOne(
      OB,
      SCENARIO,
      playbook(`
- name: checkoutservice dials paymentservice again
  ansible.builtin.command: kubectl -n {{namespace}} set env deployment/checkoutservice PAYMENT_SERVICE_ADDR=paymentservice:50051
- name: wait for it
  ansible.builtin.command: kubectl -n {{namespace}} rollout status deployment/checkoutservice --timeout=180s
`),
    );
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
  }, 1_200_000);
});
