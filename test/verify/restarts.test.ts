// The expert tier's hold, on the embedded cluster over HTTP: a pod whose container restarts between two
// readings can look Ready at each of them; the namespace's health counts restarts from the first
// reading that passed, so the hold catches it (the kubelet counts each start of a container in its
// status's restartCount: pkg/kubelet/kubelet_pods.go, convertToAPIContainerStatuses).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshot } from "../../src/envs/health.js";
import { KubeClient } from "../../src/kube/client.js";
import { ClusterTime } from "../../src/kube/time.js";
import { namespaceHealth } from "../../src/verify/scorer.js";
import { checkOf, DEFAULT_TIMEOUTS } from "../../src/verify/types.js";
import { checkBuilt, type SimCluster, startSim } from "../cli/cli-helpers.js";
import { simpleMicro } from "../helpers/offline.js";

const NS = "restarts";
let sim: SimCluster;

// A container that ends once, 120 s after it first started, and then runs for good (its
// emptyDir outlives the restart); the kubelet starts it again after its 10 s back-off
const ONCE = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${NS}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      volumes: [{name: state, emptyDir: {}}]
      containers:
        - name: busybox
          image: busybox:1.35
          command: [sh, -c, "if [ -f /state/once ]; then exec sleep infinity; fi; touch /state/once; sleep 120; exit 1"]
          volumeMounts: [{name: state, mountPath: /state}]
`;

beforeAll(async () => {
  checkBuilt();
  const dir = mkdtempSync(join(tmpdir(), "mr-restarts-"));
  sim = await startSim(dir, 10);
  await sim.kubectl(["create", "namespace", NS]);
  writeFileSync(join(dir, "once.yaml"), ONCE);
  await sim.kubectl(["apply", "-f", join(dir, "once.yaml")]);
  await sim.kubectl(["rollout", "status", "deployment/web", "-n", NS, "--timeout=60s"]);
}, 120_000);
afterAll(() => sim?.stop());

describe("the namespace's health over the hold", () => {
  it("fails a reading after a container restarted, naming it and its counts", {
    timeout: 120_000,
  }, async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfig);
    const client = new KubeClient(kc);
    const scope = {
      client,
      time: await ClusterTime.of(client),
      env: simpleMicro(),
      namespace: NS,
      windowMs: 30_000,
      timeouts: DEFAULT_TIMEOUTS,
    };
    const ctx = checkOf(scope, "web", "final");
    const health = namespaceHealth(await snapshot(client, NS));
    // the first reading passes and counts; a hold reading with nothing restarted passes
    expect((await health.verify(ctx, true, false)).pass).toBe(true);
    expect((await health.verify(ctx, false, true)).pass).toBe(true);
    // the container ends once: the kubelet starts it again, and the pod is Ready again
    const [pod] = await sim.items("pods", NS);
    await sim.kubectl([
      ...["wait", "-n", NS, `pod/${pod.metadata.name}`, "--timeout=300s"],
      "--for=jsonpath={.status.containerStatuses[0].restartCount}=1",
    ]);
    await sim.kubectl([
      "wait",
      "-n",
      NS,
      `pod/${pod.metadata.name}`,
      "--for=condition=Ready",
      "--timeout=120s",
    ]);
    const v = await health.verify(ctx, false, true);
    expect(v.pass).toBe(false);
    expect(v.reason).toBe(
      `${pod.metadata.name}/busybox restarted (restarts 0 → 1) since the checks first passed`,
    );
    // a new score's first reading counts afresh
    expect((await health.verify(ctx, true, false)).pass).toBe(true);
    expect((await health.verify(ctx, false, true)).pass).toBe(true);
  });
});
