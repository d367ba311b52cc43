// The patch semantics the expert tier's injections rely on (chaos/expert/*.yaml), through real
// `kubectl patch --patch-file` on Simple-Micro, read back with `kubectl get -o json`: what
// kube-apiserver's strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch) makes of
// each, and the API's validation of the result.
//   - a list of objects with a merge key (env by name, containers by name) merges by key;
//     `$patch: delete` in an element removes the live element of that key;
//   - `$patch: replace` in a map replaces the live map (a probe's old handler is gone);
//   - null removes a field (`rollingUpdate: null`, `args: null`);
//   - an element new to a merged list lands before the live elements the patch does not name
//     (mergeSortedSlice: kubectl patch sends no $setElementOrder), so a patched-in sidecar comes
//     first in the pod's containers;
//   - a JSON patch `add` at `/env/-` appends, a second entry of the name (the kubelet gives the
//     container the later one);
//   - ValidateDeploymentStrategy: `spec.strategy.rollingUpdate: Forbidden: may not be specified when
//     strategy `type` is 'Recreate'` when the switch to Recreate leaves the defaulted block.
// And the Deployment controller's Recreate (pkg/controller/deployment/recreate.go): old ReplicaSets
// scaled to 0, their pods gone, only then the new one scaled up.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Container, Deployment } from "../../../src/sim/core/objects.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";
import { deploySystem, isReady, type Kn, kubectlIn } from "../helpers/failures.js";
import { injection, onePod, patchWith, undo } from "../helpers/lifecycle.js";

const NS = "patches";
let t: TestCluster;
let kn: Kn;

async function deployment(name: string): Promise<Deployment> {
  const r = await kn(["get", "deployment", name, "-o", "json"]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Deployment;
}
const container = (d: Deployment, name: string) =>
  d.spec.template!.spec!.containers.find((c: Container) => c.name === name)!;

beforeAll(async () => {
  t = await startTestCluster(60, 41);
  kn = kubectlIn(t, NS);
  await deploySystem(t, "simple-micro", NS);
}, 180_000);
afterAll(() => t?.stop());

describe("strategic merge patch as the injections use it", () => {
  it("switching to Recreate needs rollingUpdate: null; leaving the defaulted block is refused as kube-apiserver does", async () => {
    const before = await deployment("hello-service");
    expect(before.spec.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
    });
    const bad = t.file("recreate-only.yaml", "spec:\n  strategy:\n    type: Recreate\n");
    const r = await kn(["patch", "deployment", "hello-service", "--type", "strategic", "--patch-file", bad]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(
      `The Deployment "hello-service" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy \`type\` is 'Recreate'`,
    );
    expect((await deployment("hello-service")).metadata.generation).toBe(before.metadata.generation);
  }, 60_000);

  it("env-missing: $patch: delete removes the entry by name, Recreate with rollingUpdate removed", async () => {
    const r = await patchWith(t, kn, "hello-service", "env-missing", {
      target_container: "hello-service",
      var: "TIME_SERVICE_ADDR",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const d = await deployment("hello-service");
    expect(d.spec.strategy).toEqual({ type: "Recreate" });
    expect(container(d, "hello-service").env).toEqual([{ name: "PORT", value: "5000" }]);
    await undo(kn, "hello-service");
    // undo restores the template, not the strategy (kubectl rollout undo copies the pod template)
    const back = await deployment("hello-service");
    expect(container(back, "hello-service").env?.map((e) => e.name)).toEqual(["PORT", "TIME_SERVICE_ADDR"]);
    expect(back.spec.strategy).toEqual({ type: "Recreate" });
  }, 120_000);

  it("readiness-bad: $patch: replace swaps the whole probe (the old httpGet path does not survive)", async () => {
    const r = await patchWith(t, kn, "time-service", "readiness-bad", {
      target_container: "time-service",
      probe_kind: "tcpSocket",
      probe_target: '{"port": 5005}',
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const probe = container(await deployment("time-service"), "time-service").readinessProbe;
    // the API server's defaults fill in what the patch left out
    expect(probe).toEqual({
      tcpSocket: { port: 5005 },
      initialDelaySeconds: 5,
      periodSeconds: 5,
      failureThreshold: 3,
      successThreshold: 1,
      timeoutSeconds: 1,
    });
    await undo(kn, "time-service");
    expect(container(await deployment("time-service"), "time-service").readinessProbe?.httpGet).toEqual({
      path: "/health",
      port: 5001,
      scheme: "HTTP",
    });
  }, 120_000);

  it("sidecar-port: a container named anew is added, ahead of the ones the patch does not name", async () => {
    const r = await patchWith(t, kn, "time-service", "sidecar-port", { port: "5001" });
    expect(r.exitCode, r.stderr).toBe(0);
    const d = await deployment("time-service");
    expect(d.spec.template!.spec!.containers.map((c: Container) => c.name)).toEqual([
      "metrics-exporter",
      "time-service",
      "sidecar-busybox",
    ]);
    expect(container(d, "metrics-exporter")).toMatchObject({
      image: "busybox:1.35",
      command: ["nc", "-lk", "-p", "5001", "-e", "cat"],
    });
    await undo(kn, "time-service");
    const back = await deployment("time-service");
    expect(back.spec.template!.spec!.containers.map((c: Container) => c.name)).toEqual([
      "time-service",
      "sidecar-busybox",
    ]);
  }, 120_000);

  it("bad-command: command set and args: null removes the container's args", async () => {
    const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: { name: worker }
spec:
  replicas: 1
  selector: { matchLabels: { app: worker } }
  template:
    metadata: { labels: { app: worker } }
    spec:
      containers:
      - { name: main, image: busybox:1.35, command: [sh, -c], args: ["sleep 3600"] }
`;
    expect((await kn(["apply", "-f", "-"], yaml)).exitCode).toBe(0);
    const r = await patchWith(t, kn, "worker", "bad-command", {
      target_container: "main",
      command: "/app/server",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const c = container(await deployment("worker"), "main");
    expect(c.command).toEqual(["/app/server"]);
    expect(c.args).toBeUndefined();
    expect((await kn(["delete", "deployment", "worker", "--wait=false"])).exitCode).toBe(0);
  }, 60_000);

  it("env-shadowed: a JSON patch add at /env/- appends a second entry; the container gets the later value", async () => {
    const r = await patchWith(
      t,
      kn,
      "hello-service",
      "env-shadowed",
      { target_container_index: "0", var: "TIME_SERVICE_ADDR", value: "time-svc:5001" },
      "json",
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const env = container(await deployment("hello-service"), "hello-service").env;
    expect(env).toEqual([
      { name: "PORT", value: "5000" },
      { name: "TIME_SERVICE_ADDR", value: "time-service:5001" },
      { name: "TIME_SERVICE_ADDR", value: "time-svc:5001" },
    ]);
    const pod = await onePod(
      kn,
      "hello-service",
      (p) => p.spec.containers[0].env?.length === 3 && p.status?.phase === "Running",
    );
    const printed = await kn([
      "exec",
      pod.metadata.name,
      "-c",
      "hello-service",
      "--",
      "printenv",
      "TIME_SERVICE_ADDR",
    ]);
    expect(printed.stdout.trim()).toBe("time-svc:5001");
    await undo(kn, "hello-service");
  }, 120_000);

  it("every injection of chaos/expert fills without a placeholder left", () => {
    expect(injection("cache-auth", { target_container: "redis", password: "s3cret" })).toContain(
      'args: ["--requirepass", "s3cret"]',
    );
    expect(injection("unschedulable", { node: "node-7" })).toContain('kubernetes.io/hostname: "node-7"');
    expect(() => injection("oom-limit", { target_container: "x" })).toThrow(/\[memory\] left unfilled/);
  });
});

describe("the Deployment controller's Recreate", () => {
  it("scales the old ReplicaSet to 0 and waits for its pods to be gone before the new one scales up", async () => {
    const old = await onePod(kn, "time-service", (p) => p.status?.phase === "Running");
    // every change to the app's pods, in the order the API server made them
    const watch = execa(
      "kubectl",
      ["-n", NS, "get", "pods", "-l", "app=time-service", "-w", "--output-watch-events", "--no-headers"],
      { env: { KUBECONFIG: t.kubeconfig }, reject: false },
    );
    let seen = "";
    watch.stdout?.on("data", (d) => {
      seen += String(d);
    });
    // the watch lists the old pod first: from then on it sees every change
    for (let i = 0; i < 200 && !seen.includes(old.metadata.name); i++)
      await new Promise((ok) => setTimeout(ok, 50));
    const r = await patchWith(t, kn, "time-service", "oom-limit", {
      target_container: "time-service",
      memory: "1Gi",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const fresh = await onePod(
      kn,
      "time-service",
      (p) => p.metadata.name !== old.metadata.name && isReady(p),
    );
    watch.kill();
    await watch;
    const lines = seen
      .trim()
      .split("\n")
      .map((l) => l.trim().split(/\s+/).slice(0, 2).join(" "));
    const deleted = lines.indexOf(`DELETED ${old.metadata.name}`);
    const added = lines.indexOf(`ADDED ${fresh.metadata.name}`);
    expect(deleted, seen).toBeGreaterThanOrEqual(0);
    expect(added, seen).toBeGreaterThan(deleted);
    const ev = await kn(["describe", "deployment", "time-service"]);
    expect(ev.stdout).toMatch(
      /ScalingReplicaSet\s+.*Scaled down replica set time-service-\w+ (to 0 from 1|from 1 to 0)/,
    );
    await undo(kn, "time-service");
  }, 120_000);
});
