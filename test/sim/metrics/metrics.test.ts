// The Metrics API through kubectl top: which pods have metrics, throttling at the CPU limit,
// per-container numbers and node totals, and metrics-server's window: it scrapes every
// --metric-resolution (15 s), serves the CPU rate between its last two points and the memory of
// the last, with that `window` and the last point's `timestamp`, so a change shows in kubectl
// top after a scrape, fully after a window. A fresh container counts from its start once it has
// run 10 s (kubernetes-sigs/metrics-server pkg/storage/pod.go, freshContainerMinMetricsResolution;
// pkg/storage/types.go resourceUsage; docs: https://github.com/kubernetes-sigs/metrics-server
// FAQ "How often metrics are scraped?" and --metric-resolution). A manual clock makes it exact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { Behavior, ContainerRef } from "../../../src/sim/context/behavior.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import type { Pod } from "../../../src/sim/core/objects.js";
import { cpuQuantity, memoryQuantity } from "../../../src/sim/metrics/source.js";
import { podManifest, runningPod, startCluster, type TestCluster, waitFor } from "../helpers/exec.js";

let t: TestCluster;
let clock: ManualClock;
const MiB = 1024 * 1024;

/** Parse kubectl top's table into rows of cells. */
const table = (out: string) =>
  out
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/));

/** A PodMetrics or NodeMetrics as the metrics API serves it (metrics.k8s.io/v1beta1). */
interface Metrics {
  timestamp: string;
  window: string;
  containers: { name: string; usage: { cpu: string; memory: string } }[];
  usage: { cpu: string; memory: string };
}

const raw = async (path: string): Promise<Metrics> => {
  const r = await t.kubectl(["get", "--raw", path]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

/** Advance to the next scrape (the PodMetrics timestamp moves). */
async function nextScrape(ns: string, pod: string) {
  const before = (await raw(`/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods/${pod}`)).timestamp;
  for (let i = 0; i < 8; i++) {
    clock.advance(2500);
    const m = await raw(`/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods/${pod}`);
    if (m.timestamp !== before) return m;
  }
  throw new Error("no scrape in 20 s of cluster time");
}

const appCpu = (m: { containers: { name: string; usage: { cpu: string } }[] }) =>
  cpuMilli(m.containers.find((c) => c.name === "app")!.usage.cpu);
const cpuMilli = (q: string) =>
  q.endsWith("n")
    ? Number(q.slice(0, -1)) / 1e6
    : q.endsWith("m")
      ? Number(q.slice(0, -1))
      : Number(q) * 1000;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  // the shop's own images, as a user's system brings them (published: the registry has them)
  t = await startCluster(1, clock, ["cart:1", "envoy:1", "x:1"]);
  // A workload that wants 4 cores whatever its limit (a stressor), next to ordinary ones.
  const generic = t.c.ctx.behavior;
  const stressed: Behavior = Object.assign(Object.create(generic), {
    usage: (ref: ContainerRef, now: number) =>
      ref.pod.metadata.labels?.stress === "true"
        ? { cpuMilli: 4000, memoryBytes: 300 * MiB }
        : generic.usage(ref, now),
  });
  t.c.ctx.behavior = stressed;
  const resources = { requests: { cpu: "200m", memory: "256Mi" }, limits: { cpu: "500m", memory: "512Mi" } };
  await runningPod(
    t.c,
    podManifest("shop", "cart", [
      { name: "app", image: "cart:1", resources },
      { name: "proxy", image: "envoy:1", resources: { requests: { cpu: "50m", memory: "64Mi" } } },
    ]),
    clock,
  );
  const hot = podManifest("shop", "hot", [{ name: "app", image: "cart:1", resources }]);
  hot.metadata.labels = { ...hot.metadata.labels, stress: "true" };
  await runningPod(t.c, hot, clock);
  clock.advance(30_000); // two scrapes: every pod has a rate
});

afterAll(async () => {
  await t?.stop();
});

describe("metrics quantities", () => {
  it("uses metrics-server's canonical forms", () => {
    expect(cpuQuantity(12.345678)).toBe("12345678n");
    expect(cpuQuantity(40)).toBe("40m");
    expect(cpuQuantity(2000)).toBe("2");
    expect(cpuQuantity(0)).toBe("0");
    expect(memoryQuantity(100 * MiB)).toBe("100Mi");
    expect(memoryQuantity(25_563_136 + 100)).toBe("24964Ki");
  });
});

describe("kubectl top", () => {
  it("lists running pods with their usage, the CPU throttled at the limit", async () => {
    const r = await t.kubectl(["top", "pod", "-n", "shop"]);
    expect(r.exitCode).toBe(0);
    const rows = table(r.stdout);
    expect(rows[0]).toEqual(["NAME", "CPU(cores)", "MEMORY(bytes)"]);
    const byName = Object.fromEntries(rows.slice(1).map((x) => [x[0], x.slice(1)]));
    expect(byName.cart).toEqual(["50m", "192Mi"]); // 20% of the CPU requests, 60% of the memory
    expect(byName.hot).toEqual(["500m", "300Mi"]); // wants 4 cores, gets its 500m limit
  });

  it("shows containers separately", async () => {
    const r = await t.kubectl(["top", "pod", "cart", "-n", "shop", "--containers"]);
    expect(r.exitCode).toBe(0);
    expect(table(r.stdout)).toEqual([
      ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"],
      ["cart", "app", "40m", "153Mi"],
      ["cart", "proxy", "10m", "38Mi"],
    ]);
  });

  it("has no metrics for a pod that just started, until a scrape window passed", async () => {
    await runningPod(
      t.c,
      podManifest("fresh", "new", [
        { name: "app", image: "x:1", resources: { requests: { cpu: "200m", memory: "256Mi" } } },
      ]),
      clock,
    );
    const started = Date.parse(
      (t.c.ctx.registry.get(R("Pod"), "fresh", "new") as Pod).status!.containerStatuses![0].state!.running!
        .startedAt!,
    );
    const r = await t.kubectl(["top", "pod", "-n", "fresh"]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("metrics not available yet");
    let later = r;
    let waited = 0;
    while (later.exitCode !== 0 && waited < 40_000) {
      clock.advance(1000);
      waited += 1000;
      later = await t.kubectl(["top", "pod", "-n", "fresh"]);
    }
    expect(later.exitCode).toBe(0);
    expect(table(later.stdout)[1]).toEqual(["new", "40m", "153Mi"]);
    // the first scrape 10-15 s after the start, else the second one: within 10-25 s
    const m = await raw("/apis/metrics.k8s.io/v1beta1/namespaces/fresh/pods/new");
    const age = Date.parse(m.timestamp) - started;
    expect(age).toBeGreaterThanOrEqual(10_000);
    expect(age).toBeLessThan(25_000);
  });

  it("sums the node's pods plus the system's own use", async () => {
    const r = await t.kubectl(["top", "node"]);
    expect(r.exitCode).toBe(0);
    const [head, row] = table(r.stdout);
    expect(head).toEqual(["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"]);
    expect(row[0]).toBe("k3s-server");
    // 50m + 500m + 40m from the pods, 95m for k3s itself; 192 + 300 + 153.6 Mi + 1100 Mi
    expect(row[1]).toBe("685m");
    expect(row[2]).toBe("2%");
    expect(row[3]).toBe("1745Mi");
  });
});

describe("metrics-server's window", () => {
  it("reports the window and the timestamp of the last scrape, not the moment of the request", async () => {
    // past the pod's second scrape, which came 16.6 s after its start and so still counted from
    // the start (the fresh rule; metrics-fresh-pod.test.ts): from here on, two scrapes 15 s apart
    const m = await nextScrape("shop", "cart");
    expect(m.window).toBe("15s");
    const age = clock.now() - Date.parse(m.timestamp);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(15_000);
    const n = await raw("/apis/metrics.k8s.io/v1beta1/nodes/k3s-server");
    expect(n.window).toBe("15s");
  });

  it("shows a StressChaos after a scrape, partly, and fully after a whole window; the same after its removal", async () => {
    const cart = () => raw("/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/cart");
    expect(appCpu(await cart())).toBe(40);
    const ap = await t.kubectl(
      ["apply", "-f", "-"],
      `apiVersion: chaos-mesh.org/v1alpha1
kind: StressChaos
metadata: { name: cpu-stress, namespace: shop }
spec:
  mode: one
  selector: { namespaces: [shop], labelSelectors: { app: cart } }
  containerNames: [app]
  stressors: { cpu: { workers: 10, load: 100 } }
`,
    );
    expect(ap.exitCode, ap.stderr).toBe(0);
    await waitFor(
      "the stressors to run",
      () => t.c.ctx.faults.forPod(t.c.ctx.registry.get(R("Pod"), "shop", "cart").metadata.uid).length > 0,
      clock,
    );
    // injected: the stressors run, and yet kubectl top still shows the last window
    const injectedAt = clock.now();
    const same = await cart();
    expect(appCpu(same)).toBe(40);
    // the next scrape averages the part of its window the stressors ran (throttled at 500m)
    const first = await nextScrape("shop", "cart");
    const ran = Math.min(15_000, Date.parse(first.timestamp) - injectedAt);
    expect(ran).toBeGreaterThan(0);
    expect(appCpu(first)).toBeGreaterThan(40);
    expect(Math.abs(appCpu(first) - (40 + ((500 - 40) * ran) / 15_000))).toBeLessThan(35);
    const full = await nextScrape("shop", "cart");
    expect(appCpu(full)).toBe(500);

    const del = await t.kubectl(["delete", "stresschaos", "cpu-stress", "-n", "shop"]);
    expect(del.exitCode, del.stderr).toBe(0);
    await waitFor(
      "the stressors to stop",
      () => t.c.ctx.faults.forPod(t.c.ctx.registry.get(R("Pod"), "shop", "cart").metadata.uid).length === 0,
      clock,
    );
    expect(appCpu(await cart())).toBe(500); // the fix is not in kubectl top at once
    const a = await nextScrape("shop", "cart");
    expect(appCpu(a)).toBeLessThan(500);
    const b = await nextScrape("shop", "cart");
    expect(appCpu(b)).toBe(40);
  });
});
