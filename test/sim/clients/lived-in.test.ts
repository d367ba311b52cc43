// A lived-in namespace, read with the real kubectl after `microremed deploy` on `microremed sim`:
// the namespace and its objects days old, each Deployment's pods hours old, a short history of
// benign earlier rollouts that `kubectl rollout history` lists (a previous image tag, debug
// logging on and off), none of the deploy's events (kube-apiserver's --event-ttl is 1 h), and
// the same for every cluster of a seed. A fault's rollout is undone to the deployed template, as
// Deployment's rollback does (pkg/controller/deployment/rollback.go: the previous revision's
// template, which becomes the newest revision). docs/clock.md says what lived-in means.
import type { V1ObjectMeta, V1ReplicaSet } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, type SimCluster, startSim, tmp } from "../../cli/cli-helpers.js";

const NS = "simple-micro";
const HOUR = 3_600_000;
const sims: SimCluster[] = [];

const clusterNow = async (sim: SimCluster) =>
  Number(JSON.parse((await sim.kubectl(["get", "--raw", "/version"])).stdout).clockMillis);

/** What a model could read of the deployed state, as ages (ms before the cluster's now). */
async function look(sim: SimCluster) {
  const now = await clusterNow(sim);
  const age = (o: { metadata: { creationTimestamp?: unknown } }) =>
    now - Date.parse(String(o.metadata.creationTimestamp));
  const ns = JSON.parse((await sim.kubectl(["get", "ns", NS, "-o", "json"])).stdout);
  const rs = JSON.parse((await sim.kubectl(["get", "replicasets", "-n", NS, "-o", "json"])).stdout)
    .items as (V1ReplicaSet & { metadata: V1ObjectMeta & { name: string } })[];
  return {
    namespace: age(ns),
    deployments: (await sim.items("deployments", NS)).map((d) => ({
      name: d.metadata.name,
      age: age(d),
      revision: d.metadata.annotations?.["deployment.kubernetes.io/revision"],
    })),
    replicaSets: rs
      .map((r) => ({
        name: r.metadata.name,
        age: age(r),
        revision: r.metadata.annotations?.["deployment.kubernetes.io/revision"],
        replicas: r.spec?.replicas,
        image: r.spec?.template?.spec?.containers[0].image,
        env: (r.spec?.template?.spec?.containers[0].env ?? []).map((e) => `${e.name}=${e.value}`),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    pods: (await sim.items("pods", NS)).map((p) => ({
      name: p.metadata.name,
      age: age(p),
      status: p.status,
    })),
    events: (await sim.kubectl(["get", "events", "-n", NS, "-o", "name"])).stdout.trim(),
  };
}

let a: Awaited<ReturnType<typeof look>>;

beforeAll(async () => {
  checkBuilt();
  for (let i = 0; i < 2; i++) {
    const sim = await startSim(tmp("mr-lived-in-"), 60);
    sims.push(sim);
    const r = await cli(["deploy", "simple-micro", "--cluster", "kube", "--kubeconfig", sim.kubeconfig]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  a = await look(sims[0]);
}, 240_000);

afterAll(async () => {
  for (const s of sims) await s.stop();
});

describe("a namespace restored from a cluster that ran for days", { timeout: 120_000 }, () => {
  it("is days old, its pods hours old and running since then, without the deploy's events", async () => {
    expect(a.namespace).toBeGreaterThan(3 * 24 * HOUR);
    for (const d of a.deployments) expect(d.age).toBeLessThan(a.namespace);
    expect(a.pods.length).toBe(2);
    for (const p of a.pods) {
      expect(p.age).toBeGreaterThanOrEqual(HOUR);
      expect(p.age).toBeLessThan(a.namespace);
      // the kubelet's status agrees: started then, never restarted, Ready since
      const created = Date.parse(String(p.status?.startTime));
      for (const c of p.status?.containerStatuses ?? []) {
        expect(c.restartCount).toBe(0);
        expect(Date.parse(String(c.state?.running?.startedAt))).toBeGreaterThanOrEqual(created);
        expect(Date.parse(String(c.state?.running?.startedAt)) - created).toBeLessThan(10 * 60_000);
      }
    }
    expect(a.events).toBe("");
    const table = (await sims[0].kubectl(["get", "pods", "-n", NS, "--no-headers"])).stdout;
    for (const row of table.trim().split("\n")) expect(row).toMatch(/\s\d+[hd]\S*$/);
  });

  it("has logs that tell the same story: the start-up lines at the container's start, requests up to now", async () => {
    const now = await clusterNow(sims[0]);
    for (const p of a.pods) {
      const c = p.status?.containerStatuses?.find((x) => x.name !== "sidecar-busybox");
      const started = Date.parse(String(c?.state?.running?.startedAt));
      const out = (
        await sims[0].kubectl(["logs", "-n", NS, p.name!, "-c", String(c?.name), "--timestamps"])
      ).stdout
        .trim()
        .split("\n");
      const stamps = out.map((l) => Date.parse(l.slice(0, l.indexOf(" "))));
      const first = stamps[0];
      const last = stamps[stamps.length - 1];
      // kubectl's stamps and the application's own agree line by line (both moved back together)
      const own = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/.exec(out[0].slice(out[0].indexOf(" ")));
      if (own) expect(Math.abs(Date.parse(own[1]) - first)).toBeLessThan(5_000);
      // the log begins with the start (whole seconds in status), and runs on until minutes ago
      expect(out[0]).toMatch(/starting|listening|ready|Running|Serving/i);
      expect(Math.abs(first - started)).toBeLessThan(60_000);
      expect(last - first).toBeGreaterThan(HOUR / 2);
      expect(now - last).toBeLessThan(5 * 60_000);
      expect(stamps.every((t, i) => i === 0 || t >= stamps[i - 1])).toBe(true);
    }
  });

  it("lists a short history of benign earlier rollouts per Deployment", async () => {
    for (const d of a.deployments) {
      const mine = a.replicaSets.filter((r) => r.name.startsWith(`${d.name}-`));
      const current = mine.find((r) => r.revision === d.revision)!;
      expect(Number(d.revision)).toBeGreaterThanOrEqual(2);
      expect(current.replicas).toBe(1);
      const history = (await sims[0].kubectl(["rollout", "history", `deploy/${d.name}`, "-n", NS])).stdout;
      for (let r = 1; r <= Number(d.revision); r++)
        expect(history).toMatch(new RegExp(`^${r}\\s+<none>`, "m"));
      for (const old of mine.filter((r) => r !== current)) {
        expect(old.replicas).toBe(0);
        expect(old.age).toBeGreaterThan(current.age);
        // an older image tag of the same image, or debug logging: nothing a fault changes
        const sameImage = old.image === current.image;
        const extraEnv = old.env.filter((e) => !current.env.includes(e));
        if (sameImage) expect(extraEnv).toEqual(["LOG_LEVEL=debug"]);
        else {
          expect(old.image?.split(":")[0]).toBe(current.image?.split(":")[0]);
          expect(extraEnv).toEqual([]);
        }
        expect(current.env.filter((e) => !old.env.includes(e))).toEqual([]);
      }
    }
  });

  it("is the same for every cluster of a seed", async () => {
    const b = await look(sims[1]);
    const shape = (x: typeof a) => x.replicaSets.map((r) => [r.name, r.revision, r.image, r.env.join(",")]);
    expect(shape(b)).toEqual(shape(a));
    // read at different instants after their deploys: compare ages against the namespace's
    const near = (x: number, y: number) => {
      expect(Math.abs(x - y)).toBeLessThan(60_000);
    };
    for (const [i, r] of a.replicaSets.entries())
      near(b.namespace - b.replicaSets[i].age, a.namespace - r.age);
    for (const [i, d] of a.deployments.entries())
      near(b.namespace - b.deployments[i].age, a.namespace - d.age);
  });

  it("undoes a fault's rollout to the deployed template, the newest revision", async () => {
    const sim = sims[0];
    const conn = ["--cluster", "kube", "--kubeconfig", sim.kubeconfig, "--env", "simple-micro"];
    expect((await cli(["inject", "image-bad-tag", "hello-service", ...conn])).exitCode).toBe(0);
    const deployed = a.deployments.find((d) => d.name === "hello-service")!;
    const before = Number(deployed.revision);
    await sim.kubectl(["rollout", "undo", "deploy/hello-service", "-n", NS]);
    await sim.kubectl(["rollout", "status", "deploy/hello-service", "-n", NS, "--timeout=120s"]);
    const after = await look(sim);
    const d = after.deployments.find((x) => x.name === "hello-service")!;
    expect(Number(d.revision)).toBe(before + 2);
    const current = after.replicaSets.find((r) => r.revision === d.revision)!;
    const was = a.replicaSets.find(
      (r) => r.revision === deployed.revision && r.name.startsWith("hello-service-"),
    )!;
    expect(current.name).toBe(was.name);
  });
});
