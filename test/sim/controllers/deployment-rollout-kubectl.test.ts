// Through kubectl: a Deployment made with `kubectl create deployment`
// (which sends `strategy: {}`), a ServiceAccount set on it and then deleted, then `kubectl set
// image`. The new ReplicaSet's creates are refused (FailedCreate); with one replica the rolling
// update may not scale the old ReplicaSet down (rolling.go reconcileOldReplicaSets: maxScaledDown
// = 2 - 1 - 1 = 0), so the old pod keeps running and the Deployment stays Available with a
// ReplicaFailure condition, as on k3s. It used to lose its only pod while saying Available.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(["-n", "roll", ...args]).then((r) => r.stdout);

async function until(what: string, f: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  t = await startTestCluster(30);
  await t.kubectl(["create", "namespace", "roll"]);
}, 60_000);
afterAll(() => t?.stop());

describe("a rolling update whose new pods cannot be created", () => {
  it("keeps the old pod, as kube's rolling update does", async () => {
    await k("create", "deployment", "web", "--image=nginx:1.25");
    expect(await k("get", "deploy", "web", "-o", "jsonpath={.spec.strategy}")).toBe(
      '{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"}',
    );
    await k("create", "serviceaccount", "mysa");
    await k("set", "serviceaccount", "deployment", "web", "mysa");
    await until("the rollout to mysa", async () =>
      (await k("rollout", "status", "deploy/web", "--timeout=1s").catch(() => "")).includes(
        "successfully rolled out",
      ),
    );
    await k("delete", "serviceaccount", "mysa");
    await k("set", "image", "deploy/web", "nginx=nginx:1.26");
    await until("FailedCreate", async () =>
      (await k("get", "events", "-o", "jsonpath={.items[*].reason}")).includes("FailedCreate"),
    );
    // well past the new ReplicaSet's first retries: the old pod is still the Deployment's
    await new Promise((r) => setTimeout(r, 1500));
    const pods = (await k("get", "pods", "--no-headers")).trim().split("\n");
    expect(pods).toHaveLength(1);
    expect(pods[0]).toMatch(/^web-\S+\s+1\/1\s+Running\s+0\s/);
    expect(
      await k(
        "get",
        "pod",
        "-o",
        "jsonpath={.items[0].spec.serviceAccountName} {.items[0].spec.containers[0].image}",
      ),
    ).toBe("mysa nginx:1.25");
    expect((await k("get", "deploy", "web", "--no-headers")).trim()).toMatch(/^web\s+1\/1\s+0\s+1\s/);
    const conditions = JSON.parse(await k("get", "deploy", "web", "-o", "jsonpath={.status.conditions}"));
    const byType = Object.fromEntries(conditions.map((c: { type: string }) => [c.type, c]));
    expect(byType.Available).toMatchObject({ status: "True", reason: "MinimumReplicasAvailable" });
    expect(byType.ReplicaFailure).toMatchObject({
      status: "True",
      reason: "FailedCreate",
      message: expect.stringMatching(
        /error looking up service account roll\/mysa: serviceaccount "mysa" not found$/,
      ),
    });
  }, 60_000);
});
