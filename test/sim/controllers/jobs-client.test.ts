// batch/v1 through @kubernetes/client-node 1.x: create a Job and watch it to its Complete
// condition (as kube's job controller sets it, pkg/controller/job/job_controller.go), list its
// pods by the generated job-name label (pkg/registry/batch/job/strategy.go), read a pod's log, and
// create, read and delete a CronJob; a Job without restartPolicy Never/OnFailure is a 422.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

let t: TestCluster;
let kc: k8s.KubeConfig;
const NS = "batch-client";

beforeAll(async () => {
  t = await startTestCluster(30);
  kc = new k8s.KubeConfig();
  kc.loadFromFile(t.kubeconfig);
  await kc.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
});
afterAll(() => t?.stop());

const template = (command: string[]): k8s.V1PodTemplateSpec => ({
  spec: { restartPolicy: "Never", containers: [{ name: "work", image: "busybox:1.36", command }] },
});

describe("batch/v1 with client-node", () => {
  it("runs a Job to Complete, seen through a watch", async () => {
    const batch = kc.makeApiClient(k8s.BatchV1Api);
    await batch.createNamespacedJob({
      namespace: NS,
      body: {
        metadata: { name: "count" },
        spec: { completions: 2, template: template(["sh", "-c", "echo counted"]) },
      },
    });
    const done = new Promise<k8s.V1Job>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no Complete condition within 60 s")), 60_000);
      new k8s.Watch(kc)
        .watch(
          `/apis/batch/v1/namespaces/${NS}/jobs`,
          { fieldSelector: "metadata.name=count" },
          (_type, obj: k8s.V1Job) => {
            if (obj.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True")) {
              clearTimeout(timer);
              resolve(obj);
            }
          },
          (err) => err && reject(err),
        )
        .catch(reject);
    });
    const job = await done;
    expect(job.status?.succeeded).toBe(2);
    expect(job.status?.completionTime).toBeTruthy();
    const pods = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNamespacedPod({ namespace: NS, labelSelector: "job-name=count" });
    expect(pods.items).toHaveLength(2);
    const log = await kc
      .makeApiClient(k8s.CoreV1Api)
      .readNamespacedPodLog({ namespace: NS, name: pods.items[0].metadata!.name! });
    expect(log).toBe("counted\n");
  }, 90_000);

  it("refuses a Job whose pods restart Always with a 422", async () => {
    const batch = kc.makeApiClient(k8s.BatchV1Api);
    const err = await batch
      .createNamespacedJob({
        namespace: NS,
        body: {
          metadata: { name: "bad" },
          spec: { template: { spec: { containers: [{ name: "c", image: "busybox:1.36" }] } } },
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: number; body?: string },
      );
    expect(err?.code).toBe(422);
    expect(String(err?.body)).toContain(
      'spec.template.spec.restartPolicy: Required value: valid values: \\"OnFailure\\", \\"Never\\"',
    );
  });

  it("creates, reads and deletes a CronJob", async () => {
    const batch = kc.makeApiClient(k8s.BatchV1Api);
    await batch.createNamespacedCronJob({
      namespace: NS,
      body: {
        metadata: { name: "nightly" },
        spec: { schedule: "0 3 * * *", jobTemplate: { spec: { template: template(["date"]) } } },
      },
    });
    const cj = await batch.readNamespacedCronJob({ namespace: NS, name: "nightly" });
    expect(cj.spec).toMatchObject({
      concurrencyPolicy: "Allow",
      suspend: false,
      successfulJobsHistoryLimit: 3,
    });
    const list = await batch.listNamespacedCronJob({ namespace: NS });
    expect(list.items.map((c) => c.metadata?.name)).toEqual(["nightly"]);
    await batch.deleteNamespacedCronJob({ namespace: NS, name: "nightly" });
    expect((await batch.listNamespacedCronJob({ namespace: NS })).items).toEqual([]);
  });
});
