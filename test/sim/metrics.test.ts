// The Metrics API through kubectl top: which pods have metrics, throttling at the CPU limit,
// per-container numbers and node totals. A manual clock makes the warm-up deterministic.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/sim/clock.js";
import { cpuQuantity, memoryQuantity } from "../../src/sim/metrics/source.js";
import type { Behavior, ContainerRef } from "../../src/sim/model/behavior.js";
import { podManifest, runningPod, startCluster, type TestCluster } from "./exec-helpers.js";

let t: TestCluster;
let clock: ManualClock;
const MiB = 1024 * 1024;

/** Parse kubectl top's table into rows of cells. */
const table = (out: string) =>
  out
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/));

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  t = await startCluster(1, clock);
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
  clock.advance(20_000); // past metrics-server's warm-up
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
    const r = await t.kubectl(["top", "pod", "-n", "fresh"]);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("metrics not available yet");
    clock.advance(15_000);
    const later = await t.kubectl(["top", "pod", "-n", "fresh"]);
    expect(later.exitCode).toBe(0);
    expect(table(later.stdout)[1]).toEqual(["new", "40m", "153Mi"]);
  });

  it("sums the node's pods plus the system's own use", async () => {
    const r = await t.kubectl(["top", "node"]);
    expect(r.exitCode).toBe(0);
    const [head, row] = table(r.stdout);
    expect(head).toEqual(["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"]);
    expect(row[0]).toBe("microremed-server");
    // 50m + 500m + 40m from the pods, 95m for k3s itself; 192 + 300 + 153.6 Mi + 1100 Mi
    expect(row[1]).toBe("685m");
    expect(row[2]).toBe("2%");
    expect(row[3]).toBe("1745Mi");
  });
});
