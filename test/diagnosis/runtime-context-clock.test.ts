// The report's runtime context is what the agent's `kubectl get pods` and `get deployments` print:
// the API server's own Tables (kubectl's table printing is server-side,
// staging/src/k8s.io/apiserver/pkg/registry/rest/table.go via each kind's TableConvertor), printed
// as kubectl's printer does (cli-runtime printers/tableprinter.go: priority-0 columns, names
// upper-cased, three spaces apart). So its ages count from the cluster's time, not the harness
// host's (a model run live found `26h` in the report against `13h` in kubectl), in kubectl's own
// words (a live model found `65h` where kubectl prints `2d17h`, and no AGE for deployments).
import { afterAll, beforeAll, expect, it } from "vitest";
import { runtimeContext } from "../../src/diagnosis/build.js";
import { KubeClient } from "../../src/kube/client.js";
import { loadKubeConfig } from "../../src/kube/connect.js";
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

it("prints what kubectl get pods and get deployments print, line for line", async () => {
  await tc.kubectl(["create", "namespace", "ages"]);
  await tc.kubectl(["-n", "ages", "run", "one", "--image=busybox:1.35", "--", "sleep", "36000"]);
  await tc.kubectl([
    "-n",
    "ages",
    "create",
    "deployment",
    "web",
    "--image=busybox:1.35",
    "--",
    "sleep",
    "36000",
  ]);
  await new Promise((r) => setTimeout(r, 3000)); // 15 cluster minutes
  const client = new KubeClient(loadKubeConfig({ kubeconfig: tc.kubeconfig }).kc);
  // at speed 300 a second between two reads moves an age by 5 minutes: read both at speed 1
  await tc.kubectl([
    "-n",
    "kube-system",
    "patch",
    "configmap",
    "cluster-clock",
    "--type",
    "merge",
    "-p",
    '{"data":{"speed":"1"}}',
  ]);
  const report = await runtimeContext(client, "ages", []);
  const pods = (await tc.kubectl(["-n", "ages", "get", "pods"])).stdout.trimEnd();
  const deps = (await tc.kubectl(["-n", "ages", "get", "deployments"])).stdout.trimEnd();
  const ageIn = (text: string) =>
    seconds(
      text
        .split("\n")
        .find((l) => l.startsWith("one "))!
        .trim()
        .split(/\s+/)
        .pop()!,
    );
  expect(ageIn(pods)).toBeGreaterThan(600);
  expect(report).toContain(`$ kubectl get pods -n ages\n${pods}\n`);
  expect(report).toContain(`$ kubectl get deployments -n ages\n${deps}`);
  expect(deps.split("\n")[0].split(/\s+/)).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
});
