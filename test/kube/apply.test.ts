// The runner deploys and restores as `kubectl apply` does, leaving the applied configuration in
// the last-applied-configuration annotation (kubectl's apply.go: the object as applied, as JSON),
// so real kubectl reads it back (`kubectl apply view-last-applied`) and `kubectl diff`-style
// reasoning about what changed since the deploy works on the embedded cluster as on k3s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { KubeClient, LAST_APPLIED } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";

let t: TestCluster;
let client: KubeClient;
beforeAll(async () => {
  t = await startTestCluster(30, 5);
  await t.kubectl(["create", "namespace", "shop"]);
  client = new KubeClient(loadKubeConfig({ kubeconfig: t.kubeconfig }).kc);
});
afterAll(() => t?.stop());

const web = (image: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", labels: { app: "web" } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } },
  },
});

describe("apply", () => {
  it("records what it applied, which kubectl reads back, and updates it on the next apply", async () => {
    await client.apply(web("nginx:1.25"), "shop");
    const seen = await t.kubectl([
      "-n",
      "shop",
      "apply",
      "view-last-applied",
      "deployment/web",
      "-o",
      "yaml",
    ]);
    expect(parse(seen.stdout)).toEqual({
      ...web("nginx:1.25"),
      metadata: { ...web("").metadata, namespace: "shop" },
    });
    // a change made outside apply (a patch) leaves the record as it was
    await t.kubectl(["-n", "shop", "set", "image", "deployment/web", "web=nginx:1.27"]);
    const live = JSON.parse((await t.kubectl(["-n", "shop", "get", "deployment/web", "-o", "json"])).stdout);
    expect(live.spec.template.spec.containers[0].image).toBe("nginx:1.27");
    expect(JSON.parse(live.metadata.annotations[LAST_APPLIED]).spec.template.spec.containers[0].image).toBe(
      "nginx:1.25",
    );
    await client.apply(web("nginx:1.26"), "shop");
    const again = await t.kubectl([
      "-n",
      "shop",
      "apply",
      "view-last-applied",
      "deployment/web",
      "-o",
      "json",
    ]);
    expect(JSON.parse(again.stdout).spec.template.spec.containers[0].image).toBe("nginx:1.26");
  });
});
