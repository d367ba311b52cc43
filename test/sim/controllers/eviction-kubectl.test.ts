// Pod eviction (policy/v1 Eviction) with PodDisruptionBudgets, `kubectl drain`
// and `kubectl cordon`, on a two-node embedded cluster, through real kubectl and client-node.
// Modelled on pkg/registry/core/pod/storage/eviction.go (429 TooManyRequests "Cannot evict pod
// as it would violate the pod's disruption budget." with a DisruptionBudget cause "The disruption
// budget NAME needs N healthy pods and has M currently"; pending pods are deleted without a
// budget check), pkg/controller/disruption/disruption.go (currentHealthy, desiredHealthy,
// disruptionsAllowed, expectedPods from the controllers' scale for maxUnavailable), and kubectl's
// drain (staging/src/k8s.io/kubectl/pkg/drain: CheckEvictionSupport reads pods/eviction's
// group/version from discovery; "evicting pod", "pod/NAME evicted", "node/NAME drained"), and
// the DisruptionTarget condition "EvictionByEvictionAPI" of releases with PodDisruptionConditions.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNodesCluster, type TestCluster } from "../helpers/nodes-cluster.js";

const APP = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.25"}]
`;

const PDB = (rule: string) => `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb}
spec:
  ${rule}
  selector: {matchLabels: {app: web}}
`;

let t: TestCluster;
const k = (...args: string[]) => t.kubectl(args).then((r) => r.stdout);
const kn = (...args: string[]) => k("-n", "ev", ...args);
const pdbStatus = async () => JSON.parse(await kn("get", "pdb", "web-pdb", "-o", "json")).status;

async function until<T>(what: string, f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  t = await startNodesCluster(["node-a", "node-b"]);
  await k("create", "namespace", "ev");
  await kn("apply", "-f", t.file("app.yaml", APP));
  await kn("rollout", "status", "deploy/web", "--timeout=60s");
}, 90_000);
afterAll(() => t?.stop());

describe("eviction and PodDisruptionBudgets", () => {
  it("computes a budget's status and prints it", async () => {
    await kn("apply", "-f", t.file("pdb.yaml", PDB("minAvailable: 3")));
    const st = await until("pdb status", pdbStatus, (s) => s?.expectedPods === 3);
    expect(st).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 3,
      disruptionsAllowed: 0,
      expectedPods: 3,
      observedGeneration: 1,
    });
    expect(st.conditions).toEqual([
      expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" }),
    ]);
    expect(await kn("get", "pdb")).toMatch(
      /NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb-pdb\s+3\s+N\/A\s+0\s/,
    );
  });

  it("answers 429 with the budget's cause when the budget forbids, through client-node", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const pod = (await core.listNamespacedPod({ namespace: "ev" })).items[0].metadata!.name!;
    const err = await core
      .createNamespacedPodEviction({ namespace: "ev", name: pod, body: { metadata: { name: pod } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(k8s.ApiException);
    const e = err as k8s.ApiException<string>;
    expect(e.code).toBe(429);
    expect(JSON.parse(e.body)).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: "TooManyRequests",
      details: {
        causes: [
          {
            reason: "DisruptionBudget",
            message: "The disruption budget web-pdb needs 3 healthy pods and has 3 currently",
          },
        ],
      },
      code: 429,
    });
  });

  it("kubectl drain stops at the budget and says why", async () => {
    const r = await t.kubectl(["drain", "node-a", "--ignore-daemonsets", "--timeout=3s"], { reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("Cannot evict pod as it would violate the pod's disruption budget.");
    expect(await k("get", "node", "node-a")).toMatch(/node-a\s+Ready,SchedulingDisabled/);
    await k("uncordon", "node-a");
  });

  it("kubectl drain evicts one pod at a time under maxUnavailable: 1 and the pods move", async () => {
    await kn("apply", "-f", t.file("pdb.yaml", PDB("maxUnavailable: 1")));
    await until(
      "pdb allows one",
      pdbStatus,
      (s) => s?.disruptionsAllowed === 1 && s.observedGeneration === 2,
    );
    await kn("rollout", "status", "deploy/web", "--timeout=60s");
    const onA = (await kn("get", "pods", "--field-selector=spec.nodeName=node-a", "-o", "name"))
      .split("\n")
      .filter(Boolean);
    const r = await t.kubectl(["drain", "node-a", "--ignore-daemonsets", "--timeout=60s"]);
    for (const p of onA) expect(r.stdout).toContain(`${p} evicted`);
    expect(r.stdout).toContain("node/node-a drained");
    await kn("rollout", "status", "deploy/web", "--timeout=60s");
    expect(await kn("get", "pods", "--field-selector=spec.nodeName=node-a", "-o", "name")).toBe("");
    expect(await k("get", "node", "node-a")).toMatch(/node-a\s+Ready,SchedulingDisabled/);
    await k("uncordon", "node-a");
    expect(await k("get", "node", "node-a")).toMatch(/node-a\s+Ready\s/);
  });

  it("evicts a pod no budget covers at once", async () => {
    await kn("run", "lone", "--image=nginx:1.25");
    await kn("wait", "--for=condition=Ready", "pod/lone", "--timeout=30s");
    await k(
      "drain",
      "node-a",
      "node-b",
      "--ignore-daemonsets",
      "--pod-selector=run=lone",
      "--force",
      "--timeout=30s",
    );
    expect((await t.kubectl(["-n", "ev", "get", "pod", "lone"], { reject: false })).stderr).toContain(
      'pods "lone" not found',
    );
    await k("uncordon", "node-a", "node-b");
  });

  it("marks an evicted pod DisruptionTarget before it goes", async () => {
    await kn("run", "lone2", "--image=nginx:1.25");
    await kn("wait", "--for=condition=Ready", "pod/lone2", "--timeout=30s");
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    // the kubelet may stop nginx at once, so the marked pod is looked for on a watch
    const seen: k8s.V1Pod[] = [];
    const watching = await new k8s.Watch(kc).watch(
      "/api/v1/namespaces/ev/pods",
      { fieldSelector: "metadata.name=lone2" },
      (_type, pod: k8s.V1Pod) => seen.push(pod),
      () => {},
    );
    await core.createNamespacedPodEviction({
      namespace: "ev",
      name: "lone2",
      body: { metadata: { name: "lone2" } },
    });
    await kn("wait", "--for=delete", "pod/lone2", "--timeout=30s");
    watching.abort();
    const marked = seen.find((p) => p.status?.conditions?.some((c) => c.type === "DisruptionTarget"));
    expect(marked?.metadata?.deletionTimestamp).toBeUndefined(); // marked first, then deleted
    expect(marked?.status?.conditions?.find((c) => c.type === "DisruptionTarget")).toMatchObject({
      status: "True",
      reason: "EvictionByEvictionAPI",
      message: "Eviction API: evicting",
    });
  });
});
