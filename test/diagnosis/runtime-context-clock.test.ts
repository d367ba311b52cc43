// The report's runtime context shows pod ages as the agent's `kubectl get pods` does: the API
// server prints AGE from its own clock (kubectl's table printing is server-side,
// staging/src/k8s.io/apiserver/pkg/registry/rest/table.go via the pod's TableConvertor), so the
// report counts from the cluster's time, not the harness host's. A model run live compared the
// two and found `26h` in the report against `13h` in kubectl.
import { afterAll, beforeAll, expect, it } from "vitest";
import { runtimeContext } from "../../src/diagnosis/build.js";
import { KubeClient } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
import { ClusterTime } from "../../src/kube/time.js";
import { startTestCluster, type TestCluster } from "../helpers/cluster.js";

let tc: TestCluster;
beforeAll(async () => {
  // at speed 300 the cluster's clock leaves the host's behind within a second
  tc = await startTestCluster(300, 7);
}, 60_000);
afterAll(() => tc.stop());

/** kubectl's short durations (duration.HumanDuration) back to seconds, roughly. */
const seconds = (age: string) =>
  [...age.matchAll(/(\d+)([dhms])/g)].reduce(
    (s, [, n, u]) => s + Number(n) * { d: 86400, h: 3600, m: 60, s: 1 }[u]!,
    0,
  );

it("ages in the report agree with kubectl get pods", async () => {
  await tc.kubectl(["create", "namespace", "ages"]);
  await tc.kubectl(["-n", "ages", "run", "one", "--image=busybox:1.35", "--", "sleep", "36000"]);
  await new Promise((r) => setTimeout(r, 3000)); // 15 cluster minutes
  const client = new KubeClient(loadKubeConfig({ kubeconfig: tc.kubeconfig }).kc);
  const time = await ClusterTime.of(client);
  const report = await runtimeContext(client, "ages", [], await time.clusterNow());
  const kubectl = (await tc.kubectl(["-n", "ages", "get", "pods", "--no-headers"])).stdout;
  const ageIn = (text: string) =>
    seconds(
      text
        .split("\n")
        .find((l) => l.startsWith("one "))!
        .trim()
        .split(/\s+/)
        .pop()!,
    );
  expect(ageIn(kubectl)).toBeGreaterThan(600);
  // a second of wall time between the two reads is 300 cluster seconds
  expect(Math.abs(ageIn(report) - ageIn(kubectl))).toBeLessThan(400);
});
