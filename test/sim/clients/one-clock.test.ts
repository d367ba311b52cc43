// One clock, read with the real kubectl: `microremed sim --speed 60`, Simple-Micro deployed and
// two faults injected with the CLI (a liveness probe aimed at nothing, a command the image lacks),
// then everything a model reads must tell one story (docs/clock.md):
// - restarts fit the pod's age under kubelet's back-off: the first restart at once, then 10 s
//   doubling to 300 s (pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff, with
//   flowcontrol.Backoff; pkg/kubelet/kubelet.go backOffPeriod and MaxContainerBackOff), by the
//   AGE the API server prints and by the age kubectl computes from its own clock;
// - an Unhealthy event's span fits its count and the probe's period (prober manager's worker
//   ticks every periodSeconds: pkg/kubelet/prober/worker.go), and a container killed by its
//   liveness probe ran initialDelaySeconds + (failureThreshold - 1) x periodSeconds first;
// - metav1.Time fields carry whole seconds (apimachinery meta/v1/time.go, Time.MarshalJSON);
// - no timestamp, log line or `date` in a container is later than the wall clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBuilt, cli, containerDate, type SimCluster, startSim, tmp } from "../../cli/cli-helpers.js";
import { ageGrain, ageSeconds, leastForRestarts } from "../helpers/story.js";

const NS = "simple-micro";
let sim: SimCluster;
let conn: string[];

const clusterNow = async () =>
  Number(JSON.parse((await sim.kubectl(["get", "--raw", "/version"])).stdout).clockMillis);

interface Ev {
  reason: string;
  count?: number;
  firstTimestamp: string;
  lastTimestamp: string;
  involvedObject: { name: string; fieldPath?: string };
  message: string;
}

beforeAll(async () => {
  checkBuilt();
  sim = await startSim(tmp("mr-one-clock-"), 60);
  conn = ["--cluster", "kube", "--kubeconfig", sim.kubeconfig, "--env", "simple-micro"];
  for (const args of [
    ["deploy", "simple-micro"],
    ["inject", "liveness-bad", "hello-service"],
    ["inject", "bad-command", "time-service"],
  ]) {
    const r = await cli([...args, ...conn]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  // eight minutes of cluster time: several back-off steps, dozens of probe periods
  const until = (await clusterNow()) + 8 * 60_000;
  while ((await clusterNow()) < until) await new Promise((ok) => setTimeout(ok, 250));
}, 300_000);

afterAll(async () => {
  await sim?.stop();
});

describe("what kubectl shows tells one story", { timeout: 120_000 }, () => {
  it("restarts fit every pod's age under the back-off, by the server's AGE and kubectl's own clock", async () => {
    const rows = (await sim.kubectl(["get", "pods", "-n", NS, "--no-headers"])).stdout.trim().split("\n");
    const pods = await sim.items("pods", NS);
    const now = await clusterNow();
    const restarted = pods.filter((p) => p.status?.containerStatuses?.some((c) => c.restartCount > 1));
    expect(restarted.length).toBeGreaterThanOrEqual(2);
    for (const row of rows.map((l) => l.split(/\s+/))) {
      // NAME READY STATUS RESTARTS [(AGO ago)] AGE: the table's restarts (one container restarts
      // in each pod here) against the table's age, both of one read
      const age = row[row.length - 1];
      const least = leastForRestarts(Number(row[3]));
      expect(ageSeconds(age) + ageGrain(age), `${row.join(" ")}`).toBeGreaterThan(least);
    }
    for (const p of pods) {
      const created = Date.parse(p.metadata.creationTimestamp as unknown as string);
      const clusterAge = (now - created) / 1000;
      const ownAge = (Date.now() - created) / 1000;
      for (const c of p.status?.containerStatuses ?? []) {
        const least = leastForRestarts(c.restartCount);
        expect(clusterAge, `${p.metadata.name}/${c.name}: ${c.restartCount} restarts`).toBeGreaterThanOrEqual(
          least,
        );
        expect(ownAge).toBeGreaterThanOrEqual(clusterAge);
        // the back-off a waiting container quotes was earned by its restarts, within its age
        const quoted = /back-off (\d+)(m?)/.exec(c.state?.waiting?.message ?? "");
        if (quoted) {
          const s = Number(quoted[1]) * (quoted[2] ? 60 : 1);
          expect(s).toBeLessThanOrEqual(Math.min(10 * 2 ** Math.max(0, c.restartCount - 1), 300));
          expect(s).toBeLessThanOrEqual(clusterAge);
        }
      }
    }
  });

  it("an Unhealthy event's span fits its count and period; a liveness kill came after the probe's delay", async () => {
    const events = JSON.parse((await sim.kubectl(["get", "events", "-n", NS, "-o", "json"])).stdout)
      .items as Ev[];
    const unhealthy = events.filter((e) => e.reason === "Unhealthy" && (e.count ?? 1) > 1);
    expect(unhealthy.length).toBeGreaterThan(0);
    const hello = (await sim.items("deployments", NS)).find((d) => d.metadata.name === "hello-service")!;
    const probe = hello.spec!.template.spec!.containers.find((c) => c.livenessProbe)!.livenessProbe!;
    expect(probe.periodSeconds).toBe(5);
    for (const e of unhealthy) {
      const span = (Date.parse(e.lastTimestamp) - Date.parse(e.firstTimestamp)) / 1000;
      // both stamps are whole seconds, rounded down: a span may look up to 1 s short
      expect(span, `${e.message} x${e.count} over ${span}s`).toBeGreaterThanOrEqual(
        ((e.count ?? 1) - 1) * probe.periodSeconds! - 1,
      );
    }
    // in a long back-off the pod worker syncs every 10 s and records BackOff each time
    // (pod_workers.go completeWork), so the event keeps up with the restarts it delays
    let backOffs = 0;
    for (const e of events.filter((x) => x.reason === "BackOff")) {
      const pod = (await sim.items("pods", NS)).find((p) => p.metadata.name === e.involvedObject.name);
      const restarts = pod?.status?.containerStatuses?.find((c) =>
        e.message.includes(`container ${c.name} `),
      )?.restartCount;
      if (restarts === undefined) continue;
      expect(e.count ?? 1, e.message).toBeGreaterThan(restarts);
      backOffs++;
    }
    expect(backOffs).toBe(2);
    const pod = (await sim.items("pods", NS)).find((p) => p.metadata.name.startsWith("hello-service-"))!;
    const st = pod.status!.containerStatuses!.find((c) => c.name === "hello-service")!;
    const last = st.lastState!.terminated!;
    const ran =
      (Date.parse(last.finishedAt as unknown as string) - Date.parse(last.startedAt as unknown as string)) /
      1000;
    expect(last.exitCode).toBe(137);
    expect(ran).toBeGreaterThanOrEqual(
      probe.initialDelaySeconds! + (probe.failureThreshold! - 1) * probe.periodSeconds! - 1,
    );
  });

  it("writes metav1.Time in whole seconds and nothing later than the wall clock", async () => {
    const all = (await sim.kubectl(["get", "pods,events,deployments,replicasets", "-n", NS, "-o", "json"]))
      .stdout;
    const fields = [
      ...all.matchAll(
        /"(creationTimestamp|lastTransitionTime|lastUpdateTime|startedAt|finishedAt|startTime|firstTimestamp|lastTimestamp)": "([^"]+)"/g,
      ),
    ];
    expect(fields.length).toBeGreaterThan(50);
    const wall = Date.now();
    for (const [, field, value] of fields) {
      expect(value, field).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(value), `${field} ${value}`).toBeLessThanOrEqual(wall);
    }
  });

  it("shows the cluster's time in a container's date and log lines, never past the wall clock", async () => {
    const before = await clusterNow();
    const date = await containerDate(sim, NS);
    const after = await clusterNow();
    expect(date * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(date * 1000).toBeLessThanOrEqual(after);
    expect(date * 1000).toBeLessThanOrEqual(Date.now());
    const logs = (
      await sim.kubectl([
        "logs",
        "-n",
        NS,
        "deploy/hello-service",
        "-c",
        "hello-service",
        "--previous",
        "--timestamps",
      ])
    ).stdout
      .trim()
      .split("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const l of logs) expect(Date.parse(l.split(" ")[0])).toBeLessThanOrEqual(after);
  });
});
