// ClusterIPs are handed out as kube-apiserver's allocator does (pkg/registry/core/service/ipallocator,
// bitmap.go, and allocator/bitmap.go's randomScanStrategyWithOffset): random within the service
// CIDR less its network and broadcast addresses, the upper band (past an offset of
// min(max(16, size/16), 256)) first, the lower band only once the upper is full, a full range an
// internal error. Drawn from the cluster's seed, so a seed gives the same addresses every time.
import { afterAll, describe, expect, it } from "vitest";
import { ClusterIPAllocator } from "../../../src/sim/api/service-ips.js";
import { ApiError } from "../../../src/sim/api/status.js";
import { Rng } from "../../../src/util/rng.js";
import { startTestCluster, type TestCluster } from "../../helpers/cluster.js";

const clusters: TestCluster[] = [];
afterAll(async () => {
  for (const c of clusters) await c.stop();
});

/** Twelve Services created with kubectl on a cluster of this seed, and the addresses they got. */
async function twelveServices(seed: number): Promise<{ t: TestCluster; ips: string[] }> {
  const t = await startTestCluster(30, seed);
  clusters.push(t);
  const names = Array.from({ length: 12 }, (_, i) => `svc-${i}`);
  for (const n of names) await t.kubectl(["create", "service", "clusterip", n, "--tcp=80:8080"]);
  const out = await t.kubectl(["get", "svc", ...names, "-o", "jsonpath={.items[*].spec.clusterIP}"]);
  return { t, ips: out.stdout.split(" ") };
}

const index = (ip: string) => {
  const [a, b, c, d] = ip.split(".").map(Number);
  expect([a, b]).toEqual([10, 43]);
  return c * 256 + d;
};

describe("ClusterIPs over the service CIDR", () => {
  it("are random in the upper band of 10.43.0.0/16, not in sequence, and the same for a seed", async () => {
    const { ips } = await twelveServices(42);
    expect(new Set(ips).size).toBe(12);
    // 10.43.1.1 (offset 256 past 10.43.0.1) to 10.43.255.254
    for (const ip of ips) expect(index(ip)).toBeGreaterThanOrEqual(257);
    for (const ip of ips) expect(index(ip)).toBeLessThanOrEqual(65534);
    const sorted = ips.map(index).sort((a, b) => a - b);
    // spread over the range: twelve draws from 65278 addresses are far apart, never a run
    expect(sorted[11] - sorted[0]).toBeGreaterThan(10_000);
    expect(sorted.some((v, i) => i > 0 && v - sorted[i - 1] === 1)).toBe(false);
    expect((await twelveServices(42)).ips).toEqual(ips);
    expect((await twelveServices(7)).ips).not.toEqual(ips);
  });

  it("keep an address asked for, give headless Services None and ExternalName ones nothing", async () => {
    const t = await startTestCluster(30, 42);
    clusters.push(t);
    const yaml = [
      "apiVersion: v1\nkind: Service\nmetadata: {name: pinned}\nspec: {clusterIP: 10.43.0.50, ports: [{port: 80}]}",
      "apiVersion: v1\nkind: Service\nmetadata: {name: headless}\nspec: {clusterIP: None, ports: [{port: 80}]}",
      "apiVersion: v1\nkind: Service\nmetadata: {name: away}\nspec: {type: ExternalName, externalName: example.com}",
    ].join("\n---\n");
    await t.kubectl(["apply", "-f", t.file("svcs.yaml", yaml)]);
    const get = (n: string) =>
      t
        .kubectl(["get", "svc", n, "-o", "jsonpath={.spec.clusterIP}/{.spec.clusterIPs}"])
        .then((r) => r.stdout);
    expect(await get("pinned")).toBe('10.43.0.50/["10.43.0.50"]');
    expect(await get("headless")).toBe('None/["None"]');
    expect(await get("away")).toBe("/");
  });
});

describe("the allocator's bands", () => {
  it("fills the upper band of a /24 before its lower 16 addresses, then says the range is full", () => {
    const ips = new ClusterIPAllocator(new Rng(1), "10.0.0.0/24");
    const used = new Set<string>();
    const order: number[] = [];
    for (let i = 0; i < 254; i++) {
      const ip = ips.allocate(used);
      used.add(ip);
      order.push(Number(ip.split(".")[3]));
    }
    // offset min(max(16, 256/16), 256) = 16: .17 to .254 first, then .1 to .16
    expect(order.slice(0, 238).every((d) => d >= 17 && d <= 254)).toBe(true);
    expect(order.slice(238).every((d) => d >= 1 && d <= 16)).toBe(true);
    expect(new Set(order).size).toBe(254);
    let full: unknown;
    try {
      ips.allocate(used);
    } catch (e) {
      full = e;
    }
    expect(full).toBeInstanceOf(ApiError);
    expect((full as ApiError).code).toBe(500);
    expect((full as ApiError).message).toBe(
      "Internal error occurred: failed to allocate a serviceIP: range is full",
    );
  });

  it("has no lower band in a range of 16 or fewer addresses", () => {
    const ips = new ClusterIPAllocator(new Rng(3), "10.0.0.0/28");
    const used = new Set<string>();
    for (let i = 0; i < 14; i++) used.add(ips.allocate(used));
    expect([...used].map((ip) => Number(ip.split(".")[3])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 14 }, (_, i) => i + 1),
    );
  });

  it("refuses a service CIDR it cannot read, saying what one looks like", () => {
    expect(() => new ClusterIPAllocator(new Rng(1), "10.43.0.0")).toThrow(
      /not an IPv4 CIDR such as 10.43.0.0\/16/,
    );
  });
});
