// @kubernetes/client-node 1.x against the embedded cluster.
import { PassThrough } from "node:stream";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

let t: TestCluster;
let kc: k8s.KubeConfig;
const NS = "client-node";

beforeAll(async () => {
  t = await startTestCluster(30);
  kc = new k8s.KubeConfig();
  kc.loadFromFile(t.kubeconfig);
  await kc.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
});
afterAll(() => t?.stop());

const deployment = (name: string): k8s.V1Deployment => ({
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name, image: "busybox:1.35", command: ["sleep", "infinity"] }] },
    },
  },
});

describe("@kubernetes/client-node", () => {
  it("creates, gets, lists, patches (merge and strategic) and deletes", async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment("one") });
    const got = await apps.readNamespacedDeployment({ namespace: NS, name: "one" });
    expect(got.metadata?.uid).toBeTruthy();
    const list = await apps.listNamespacedDeployment({ namespace: NS });
    expect(list.items.map((d) => d.metadata?.name)).toEqual(["one"]);
    await apps.patchNamespacedDeployment(
      { namespace: NS, name: "one", body: { metadata: { labels: { patched: "merge" } } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    await apps.patchNamespacedDeployment(
      {
        namespace: NS,
        name: "one",
        body: {
          spec: { template: { spec: { containers: [{ name: "one", env: [{ name: "X", value: "1" }] }] } } },
        },
      },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch),
    );
    const patched = await apps.readNamespacedDeployment({ namespace: NS, name: "one" });
    expect(patched.metadata?.labels?.patched).toBe("merge");
    expect(patched.spec?.template.spec?.containers[0].image).toBe("busybox:1.35");
    expect(patched.spec?.template.spec?.containers[0].env).toEqual([{ name: "X", value: "1" }]);
    await apps.deleteNamespacedDeployment({ namespace: NS, name: "one" });
    await expect(apps.readNamespacedDeployment({ namespace: NS, name: "one" })).rejects.toMatchObject({
      code: 404,
    });
  });

  it("watches pods ADDED, MODIFIED as they start, DELETED", async () => {
    const seen: string[] = [];
    let running = false;
    const watch = new k8s.Watch(kc);
    const done = new Promise<void>((resolve) => {
      void watch
        .watch(
          `/api/v1/namespaces/${NS}/pods`,
          { labelSelector: "app=two" },
          (type, obj: k8s.V1Pod) => {
            seen.push(type);
            if (obj.status?.phase === "Running") running = true;
            if (type === "DELETED") resolve();
          },
          () => {},
        )
        .then((ac) => {
          void done.then(() => ac.abort());
        });
    });
    await new Promise((r) => setTimeout(r, 200));
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment("two") });
    for (let i = 0; i < 100 && !running; i++) await new Promise((r) => setTimeout(r, 100));
    expect(running).toBe(true);
    await apps.deleteNamespacedDeployment({ namespace: NS, name: "two" });
    await done;
    expect(seen[0]).toBe("ADDED");
    expect(seen).toContain("MODIFIED");
    expect(seen.at(-1)).toBe("DELETED");
  });

  it("execs over WebSocket and reads logs", async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await kc
      .makeApiClient(k8s.AppsV1Api)
      .createNamespacedDeployment({ namespace: NS, body: deployment("three") });
    let pod: k8s.V1Pod | undefined;
    for (let i = 0; i < 100; i++) {
      pod = (await core.listNamespacedPod({ namespace: NS, labelSelector: "app=three" })).items.find(
        (p) => p.status?.phase === "Running",
      );
      if (pod) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const name = pod!.metadata!.name!;
    const out = new PassThrough();
    let text = "";
    out.on("data", (d) => (text += d));
    const status = await new Promise<k8s.V1Status>((resolve) => {
      void new k8s.Exec(kc).exec(
        NS,
        name,
        "three",
        ["cat", "/etc/hostname"],
        out,
        null,
        null,
        false,
        resolve,
      );
    });
    expect(status.status).toBe("Success");
    expect(text.trim()).toBe(name);
    const failed = await new Promise<k8s.V1Status>((resolve) => {
      void new k8s.Exec(kc).exec(NS, name, "three", ["false"], new PassThrough(), null, null, false, resolve);
    });
    expect(failed.status).toBe("Failure");
    const logs = await core.readNamespacedPodLog({ namespace: NS, name, container: "three" });
    expect(typeof logs).toBe("string");
  });
});
