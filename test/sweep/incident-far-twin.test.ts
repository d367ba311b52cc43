// In the sweep (by hand), not the tier lane: the tier lane keeps each family's wrong fixes within
// CI's 45 minutes, and this scenario's family has its own there.
// The far family's valid-but-wrong address (docs/incident-tier.md, far-wrong-twin) through the CLI
// on the embedded cluster at --speed 600: two hours before the alert checkoutservice was deployed
// with PAYMENT_SERVICE_ADDR=shippingservice:50051 (another real gRPC service on the same port),
// then rolled out to a patch release of its image; paymentservice, which the errors name, was
// rolled out twenty minutes before the alert, and shippingservice, which gets the wrong calls,
// restarted twice. Each tempting wrong fix fails: undoing checkoutservice's rollout (the previous
// revision keeps the address), restarting it (the same template), undoing and restarting the
// service the errors name. (The oracle, noop and the runbook over both systems:
// test/sweep/incident.test.ts; Train-Ticket's oracle here, the other branch of its detector.)
// Sources: kubectl's rollout undo (kubectl/pkg/polymorphichelpers/rollback.go: the previous
// revision only); grpc-go server.go handleStream (an unregistered service answered
// codes.Unimplemented "unknown service <name>"); Kubernetes' Deployment controller (a restart
// makes a new ReplicaSet of the same template: the same environment).
import { describe, expect, it } from "vitest";
import { playbook, runOne, runScenarios } from "../tiers/incident.js";

const SCENARIO = "far-wrong-twin";

/** Kubectl commands in order, each waited for where it rolls a Deployment out. */
const steps = (...cmds: [string, string][]) =>
  playbook(
    cmds
      .map(
        ([name, cmd]) => `- name: ${name}
  ansible.builtin.shell: ${cmd}`,
      )
      .join("\n"),
  );

const rolled = (verb: string, dep: string) =>
  `kubectl -n {{namespace}} rollout ${verb} deployment/${dep} && kubectl -n {{namespace}} rollout status deployment/${dep} --timeout=120s`;

/** The users' checkout still fails: the case is ineffective for it. */
function stillFails(c: { status?: unknown; reason?: { code?: string } }) {
  expect(c.status).toBe("failure");
  expect(c.reason?.code, JSON.stringify(c.reason)).toBe("ineffective");
  expect(JSON.stringify(c.reason)).toMatch(/checkout: \d of \d requests failed/);
}

describe("far-wrong-twin on Online-Boutique: the wrong fixes fail", () => {
  it("undoing checkoutservice's rollout goes back to the revision with the wrong address", async () => {
    const [c] = await runOne(
      "online-boutique",
      SCENARIO,
      steps(["undo checkoutservice", rolled("undo", "checkoutservice")]),
    );
    stillFails(c);
  }, 600_000);

  it("restarting checkoutservice starts it with the same address", async () => {
    const [c] = await runOne(
      "online-boutique",
      SCENARIO,
      steps(["restart checkoutservice", rolled("restart", "checkoutservice")]),
    );
    stillFails(c);
  }, 600_000);

  it("undoing and restarting paymentservice, which the errors name, changes nothing", async () => {
    const [c] = await runOne(
      "online-boutique",
      SCENARIO,
      steps(
        ["undo paymentservice", rolled("undo", "paymentservice")],
        ["restart paymentservice", rolled("restart", "paymentservice")],
      ),
    );
    stillFails(c);
  }, 600_000);
});

describe("far-wrong-twin on Train-Ticket: the oracle finds the datasource its Secret does not give", () => {
  it("repairs it from the ReplicaSets, the Services and the envFrom Secret, and changes only ts-route-service", async () => {
    const [c] = await runScenarios("train-ticket", [SCENARIO], "oracle");
    expect(c.status, JSON.stringify(c.reason)).toBe("success");
    expect(c.localization?.localized, JSON.stringify(c.localization)).toBe(true);
  }, 900_000);
});
