// An incident's steps on the embedded cluster, read back with real kubectl: the causal deploy is
// in the object's history (a new rollout revision, and kubectl's last-applied record holds the
// change, as `kubectl apply` of an edited manifest leaves it), the wait makes it older than the
// red herrings after it, every step's object is recorded, and the restore puts exactly those back
// (the deleted Service made again, the changed Deployments as deployed, last-applied included).
// Sources: kubectl apply's last-applied-configuration (kubectl/pkg/cmd/apply/apply.go), rollout
// history from ReplicaSets' revision annotations (kubectl/pkg/polymorphichelpers/history.go).
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/envs/env.js";
import { incident, renderScenario } from "../../src/faults/incident.js";
import type { Touched } from "../../src/faults/injection.js";
import { injectIncident, onsetOf, restoreSteps, runSteps, type StepScope } from "../../src/faults/steps.js";
import { KubeClient } from "../../src/kube/client.js";
import { ClusterTime } from "../../src/kube/time.js";
import { targetVars } from "../../src/runner/experiments.js";
import { usersFailing } from "../../src/runner/roles.js";
import { DEFAULT_TIMEOUTS } from "../../src/verify/types.js";
import { checkBuilt, cli, type SimCluster, startSim, tmp } from "../cli/cli-helpers.js";

const NS = "simple-micro";
const LAST = "kubectl.kubernetes.io/last-applied-configuration";
let sim: SimCluster;
let scope: StepScope;

beforeAll(async () => {
  checkBuilt();
  sim = await startSim(tmp("mr-incident-steps-"), 600);
  const d = await cli(["deploy", "simple-micro", "--namespace", NS, "--kubeconfig", sim.kubeconfig]);
  if (d.exitCode !== 0) throw new Error(d.stderr);
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfig);
  const client = new KubeClient(kc);
  const env = loadEnv("simple-micro");
  scope = {
    client,
    time: await ClusterTime.of(client),
    namespace: NS,
    manifests: env.manifests,
    readyTimeoutSeconds: env.readyTimeoutSeconds,
  };
}, 120_000);

afterAll(async () => {
  await sim?.stop();
});

const envOf = async (dep: string) => {
  const d = JSON.parse((await sim.kubectl(["-n", NS, "get", "deployment", dep, "-o", "json"])).stdout);
  return {
    env: d.spec.template.spec.containers[0].env as { name: string; value: string }[],
    applied: JSON.parse(d.metadata.annotations[LAST]).spec.template.spec.containers[0].env as {
      name: string;
      value: string;
    }[],
    revision: Number(d.metadata.annotations["deployment.kubernetes.io/revision"]),
  };
};

describe("an incident's steps", () => {
  it("deploy the cause into the history, then the red herrings, and the restore puts back each object", async () => {
    const env = loadEnv("simple-micro");
    const s = renderScenario(
      incident("multi-masked"),
      targetVars(env, "multi-masked", "hello-service") ?? {},
    );
    const before = await envOf("hello-service");
    const t0 = await scope.time.clusterNow();
    const touched: Touched[] = [];
    await runSteps(scope, s.steps, (t) => {
      touched.push(...t);
    });
    // the wait passed in cluster time
    expect((await scope.time.clusterNow()) - t0).toBeGreaterThanOrEqual(1800_000);
    expect(touched.map((t) => `${t.action} ${t.kind}/${t.name}`)).toEqual([
      "patched Deployment/hello-service",
      "patched Deployment/time-service",
      "deleted Service/time-service",
    ]);
    // the wrong address is what the Deployment was applied with: no drift from last-applied shows it
    const after = await envOf("hello-service");
    expect(after.env).toContainEqual({ name: "TIME_SERVICE_ADDR", value: "time-service:5002" });
    expect(after.applied).toContainEqual({ name: "TIME_SERVICE_ADDR", value: "time-service:5002" });
    expect(after.revision).toBe(before.revision + 1);
    // the benign rollout is newer than the cause
    const rs = JSON.parse((await sim.kubectl(["-n", NS, "get", "replicasets", "-o", "json"])).stdout)
      .items as {
      metadata: { name: string; creationTimestamp: string; annotations: Record<string, string> };
    }[];
    const newest = (dep: string) =>
      rs
        .filter((r) => r.metadata.name.startsWith(`${dep}-`))
        .map((r) => Date.parse(r.metadata.creationTimestamp))
        .sort()
        .at(-1)!;
    expect(newest("time-service") - newest("hello-service")).toBeGreaterThanOrEqual(1800_000);
    expect(
      (await sim.kubectl(["-n", NS, "get", "service", "time-service"], { reject: false })).exitCode,
    ).not.toBe(0);

    await restoreSteps(scope, touched);
    const restored = await envOf("hello-service");
    expect(restored.env).toEqual(before.env);
    expect(restored.applied).toEqual(before.applied);
    expect((await envOf("time-service")).env).not.toContainEqual({ name: "LOG_LEVEL", value: "info" });
    await sim.kubectl(["-n", NS, "get", "service", "time-service"]);
  }, 120_000);

  it("know when users' requests began to fail: a cause deployed before the story's wait was alerted on then", async () => {
    const env = loadEnv("simple-micro");
    const s = renderScenario(
      incident("herring-old-change"),
      targetVars(env, "herring-old-change", "hello-service") ?? {},
    );
    const check = { ...scope, env, windowMs: 60_000, timeouts: DEFAULT_TIMEOUTS };
    const t0 = await scope.time.clusterNow();
    const inj = await injectIncident({ ...scope, usersFail: usersFailing(check, []) }, s, "hello-service");
    const end = await scope.time.clusterNow();
    // read after the cause's rollout, then failing through the 40-minute wait and the red herrings
    expect(inj.onsetMs).toBeGreaterThan(t0);
    expect(end - inj.onsetMs!).toBeGreaterThanOrEqual(2400_000);
    await restoreSteps(scope, inj.touched ?? []);
  }, 120_000);

  it("take the onset from the readings that stayed failing: a failure that passed again was a moment", () => {
    const r = (at: number, failing: boolean) => ({ at, failing });
    expect(onsetOf([r(1, false), r(2, true), r(3, true)])).toBe(2);
    expect(onsetOf([r(1, true), r(2, false), r(3, true)])).toBe(3);
    expect(onsetOf([r(1, true), r(2, false)])).toBeUndefined();
    expect(onsetOf([])).toBeUndefined();
  });
});
