// The systems' topologies as the embedded cluster runs them (pinned clock): startup time against
// the CPU limit, usage that grows with the load flowing down the call graph, and the lines the
// services log when they start and when a dependency is down or slow (up the call graph too).
import { describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { podReady } from "../../../src/sim/core/meta.js";
import type { Deployment, KObject, Pod, Service } from "../../../src/sim/core/objects.js";
import { containerRef, containerUsage } from "../../../src/sim/metrics/usage.js";
import { allReady, deploy, type Sim } from "../helpers/topology.js";

const cpuOf = (sim: Sim, pod: Pod, container = pod.spec.containers[0].name) => {
  const ref = containerRef(
    sim.cluster.ctx.registry.get(R("Pod"), sim.ns, pod.metadata.name!),
    container,
    sim.clock,
  )!;
  return containerUsage(sim.cluster.ctx, ref, sim.clock.now());
};

/** The manifests with one Deployment's first container given other limits. */
const withLimits = (app: string, limits: Record<string, string>, requests = limits) => ({
  create: (o: KObject) => {
    if (o.kind !== "Deployment" || o.metadata.name !== app) return o;
    const c = structuredClone(o) as Deployment;
    c.spec.template.spec!.containers[0].resources = { requests, limits };
    return c;
  },
});

describe("startup", () => {
  it("takes startupSeconds when the CPU limit covers startupCpu", () => {
    const sim = deploy("simple-micro");
    sim.advance(20_000);
    const logs = sim.logs(sim.pod("hello-service"));
    // Python logging's asctime, "2026-11-28 06:03:01,369" (src/sim/core/log-stamps.ts)
    const at = (l: string) => Date.parse(`${l.slice(0, 10)}T${l.slice(11, 23).replace(",", ".")}Z`);
    const start = at(logs[0]);
    const ready = at(logs[1]);
    expect(logs[0]).toMatch(/\[INFO\] hello-service: starting hello-service on port 5000, time source/);
    expect(logs[1]).toMatch(/\[INFO\] hello-service: hello-service ready, listening on 0\.0\.0\.0:5000$/);
    // python: 2 s at 200m wanted, limit 500m
    expect(ready - start).toBe(2000);
    expect(allReady(sim)).toBe(true);
  });

  it("stretches by startupCpu / limit: under 2m the app starts late and never becomes Ready", () => {
    const sim = deploy(
      "simple-micro",
      "slow",
      withLimits("time-service", { cpu: "2m", memory: "200Mi" }, { cpu: "1m", memory: "100Mi" }),
    );
    sim.advance(120_000, 1000);
    expect(podReady(sim.pod("hello-service"))).toBe(true);
    expect(podReady(sim.pod("time-service"))).toBe(false);
    expect(sim.logs(sim.pod("time-service"))).toHaveLength(1); // started, not yet serving
    // 2 s x 200m / 2m = 200 s after the start the app serves, but each probe answer needs
    // more CPU time than 2m gives it within the probe's 1 s: it stays NotReady
    sim.advance(100_000, 1000);
    expect(sim.logs(sim.pod("time-service"))[1]).toMatch(/time-service ready, listening on 0\.0\.0\.0:5001$/);
    expect(podReady(sim.pod("time-service"))).toBe(false);
  });

  it("a Java service with 200Mi runs out of memory as it starts and is OOM-killed", () => {
    const sim = deploy(
      "train-ticket",
      "tt",
      withLimits("ts-route-service", { cpu: "500m", memory: "200Mi" }),
    );
    sim.advance(30_000, 1000);
    const pod = sim.pod("ts-route-service");
    const st = pod.status!.containerStatuses![0];
    expect(st.restartCount).toBeGreaterThan(0);
    expect(st.lastState!.terminated!.reason).toBe("OOMKilled");
    const previous = sim.cluster.ctx.logs.logs({ pod, container: "ts-route-service", previous: true }).lines;
    expect(previous.join("\n")).toMatch(
      /Starting RouteApplication[\s\S]*java\.lang\.OutOfMemoryError: Java heap space/,
    );
  });
});

describe("usage", () => {
  it("grows with the load the entry receives and falls to idle without it", () => {
    const sim = deploy("online-boutique");
    sim.advance(180_000, 1000);
    expect(allReady(sim)).toBe(true);
    // frontend: 2m idle + 3m per rps x 5 rps from the load generator; checkout gets what frontend spreads
    const loaded = cpuOf(sim, sim.pod("frontend")).cpuMilli;
    expect(loaded).toBeGreaterThan(12);
    expect(loaded).toBeLessThan(22);
    expect(cpuOf(sim, sim.pod("frontend")).memoryBytes / 2 ** 20).toBeGreaterThan(33);
    // stop the load generator: the frontend idles
    sim.cluster.ctx.registry.delete(R("Deployment"), sim.ns, "loadgenerator");
    sim.advance(40_000);
    expect(cpuOf(sim, sim.pod("frontend")).cpuMilli).toBeLessThanOrEqual(3);
  });

  it("splits a service's load over its Ready pods and throttles at the limit", () => {
    const sim = deploy("train-ticket", "tt");
    sim.advance(240_000, 2000);
    const one = cpuOf(sim, sim.pod("ts-gateway-service")).cpuMilli;
    const dep = sim.cluster.ctx.registry.get(R("Deployment"), sim.ns, "ts-gateway-service") as Deployment;
    sim.cluster.ctx.registry.update(R("Deployment"), sim.ns, "ts-gateway-service", {
      ...dep,
      spec: { ...dep.spec, replicas: 2 },
    });
    sim.advance(240_000, 2000);
    const each = sim.pods("ts-gateway-service").map((p) => cpuOf(sim, p).cpuMilli);
    expect(each).toHaveLength(2);
    // 12m idle + 8m per rps: 8 rps on one pod, 4 on each of two
    for (const c of each) expect(c).toBeLessThan(one);
    sim.inject(sim.pod("ts-gateway-service"), { kind: "stress", cpu: { workers: 10, load: 100 } });
    expect(cpuOf(sim, sim.pod("ts-gateway-service")).cpuMilli).toBe(500);
  });
});

describe("logs", () => {
  it("Spring Boot's start line: its own stopwatch behind the JVM's uptime, in ms, never on a whole second", () => {
    // spring-boot StartupInfoLogger.getStartedMessage: "Started X in %.3f seconds (JVM running for %.3f)",
    // the first from the application's StopWatch, the second from the JVM's uptime (RuntimeMXBean)
    const sim = deploy("train-ticket", "tt");
    sim.advance(240_000, 2000);
    const starts = ["ts-auth-service", "ts-order-service", "ts-travel-service"].map(
      (app) => sim.logs(sim.pod(app)).find((l) => / : Started \w+ in /.test(l))!,
    );
    for (const line of starts) {
      const [, app, jvm] = line.match(/in ([\d.]+) seconds \(JVM running for ([\d.]+)\)$/)!.map(Number);
      expect(jvm, line).toBeGreaterThan(app);
      expect(`${app} ${jvm}`, line).not.toMatch(/\.000\b/);
    }
  });

  it("fill every placeholder of the startup and ready templates", () => {
    const sim = deploy("train-ticket", "tt");
    sim.advance(240_000, 2000);
    const pod = sim.pod("ts-order-service");
    const lines = sim.logs(pod);
    expect(lines[0]).toContain(
      `Starting OrderApplication using Java 1.8.0_352 on ${pod.metadata.name} with PID 1`,
    );
    const ready = lines.find((l) => l.includes("register finished"))!;
    expect(ready).toContain(`DEFAULT_GROUP ts-order-service ${pod.status!.podIP}:12031 register finished`);
    expect(lines.find((l) => l.includes("Started OrderApplication"))).toMatch(/in \d+\.\d{3} seconds/);
    expect(lines.join("\n")).not.toMatch(/\{(time|pod|podIp|port|dep|depPort|ms|seconds|id|epochMs)\}/);
  });

  it("a caller logs refused calls once its callee has no Ready pod", () => {
    const sim = deploy("simple-micro");
    sim.advance(30_000);
    expect(sim.logs(sim.pod("hello-service")).slice(-1)[0]).toMatch(/"GET \/hello HTTP\/1\.1" 200$/);
    sim.cluster.ctx.registry.delete(R("Deployment"), sim.ns, "time-service");
    sim.advance(30_000);
    const last = sim.logs(sim.pod("hello-service")).slice(-2);
    for (const l of last)
      expect(l).toMatch(
        /\[ERROR\] hello-service: GET http:\/\/time-service:5001\/time failed after \d+ms: <urlopen error \[Errno 111\] Connection refused>$/,
      );
  });

  it("a delayed caller times out; errors travel up the call graph", () => {
    const sim = deploy("simple-micro");
    sim.advance(30_000);
    // hello-service's own egress: DNS, handshake and request each wait 1 s, past urlopen's 3 s
    sim.inject(sim.pod("hello-service"), {
      kind: "network",
      action: "delay",
      direction: "to",
      delayMs: 1000,
    });
    sim.advance(10_000);
    expect(sim.logs(sim.pod("hello-service")).slice(-1)[0]).toMatch(/failed after 30\d\dms: timed out$/);

    const ob = deploy("online-boutique");
    ob.advance(180_000, 1000);
    ob.cluster.ctx.registry.delete(R("Deployment"), ob.ns, "productcatalogservice");
    ob.advance(60_000, 1000);
    const tail = (app: string) => ob.logs(ob.pod(app)).slice(-3).join("\n");
    expect(tail("recommendationservice")).toContain(
      "failed to list products from productcatalogservice:3550",
    );
    // grpc-go dials the address its resolver gave: the Service's ClusterIP, which has no endpoints
    const catalogIp = (ob.cluster.ctx.registry.get(R("Service"), ob.ns, "productcatalogservice") as Service)
      .spec.clusterIP;
    const front = ob.logs(ob.pod("frontend")).slice(-200).join("\n");
    expect(front).toContain(`dial tcp ${catalogIp}:3550: connect: connection refused`);
    // checkoutservice returns its failure to the frontend and logs none itself; its words drop
    // the product's error (src/checkoutservice/main.go prepOrderItems: "failed to get product #%q")
    expect(tail("checkoutservice")).toContain("[PlaceOrder] user_id=");
    expect(tail("checkoutservice")).not.toContain('"severity":"error"');
    expect(front).toContain(
      '"error":"failed to complete the order: rpc error: code = Internal desc = failed to prepare order: failed to get product #\\"OLJCESPC7Z\\""',
    );
    // the frontend fails the requests whose calls failed below it
    // logrus's JSONFormatter writes the fields sorted by name
    expect(tail("frontend")).toMatch(/"message":"request error","session":"[^"]+","severity":"error"/);
    expect(tail("loadgenerator")).toMatch(/ERROR\/locust\.runners/);
  });

  it("a stalled disk shows as ioStall lines, a store that is gone as store errors", () => {
    const sim = deploy("train-ticket", "tt");
    sim.advance(240_000, 2000);
    const db = sim.pod("nacosdb-mysql");
    sim.inject(db, {
      kind: "io",
      action: "latency",
      volumePath: "/var/lib/mysql",
      path: "/var/lib/mysql/**/*",
      delayMs: 5000,
      percent: 100,
    });
    sim.advance(30_000, 2000);
    expect(sim.logs(db).slice(-6).join("\n")).toMatch(
      /InnoDB: page_cleaner: 1000ms intended loop took 5000ms/,
    );
    sim.cluster.ctx.registry.delete(R("Deployment"), sim.ns, "nacosdb-mysql");
    sim.advance(30_000, 2000);
    expect(sim.logs(sim.pod("nacos")).slice(-2).join("\n")).toContain(
      "Could not get JDBC Connection; nested exception is java.net.ConnectException: Connection refused (Connection refused) (nacosdb-mysql:3306)",
    );
  });
});
