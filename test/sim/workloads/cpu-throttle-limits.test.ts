// The expert tier's cpu-throttle: the CPU limit per service that the expert tier's targets can use
// (envs/*/env.yaml faultTargets cpu-throttle params), checked against the traffic model with the
// limits applied as chaos/expert/cpu-throttle.yaml applies them (limit = request), pinned clock.
//
// What the model follows (workloads/topology/own-time.ts): the kubelet sets cpu.max to
// limit x 100 ms per 100 ms period (pkg/kubelet/cm/helpers_linux.go MilliCPUToQuota, the default
// cfs_period_us), so a request needing more CPU than its container has left of a period's quota
// waits out the rest of the period (kernel/sched/fair.c throttle_cfs_rq) even when the average
// usage stays below the limit; start-up stretches by startupCpu / limit (topology/behavior.ts).
//
// Each limit below keeps the start-up under a minute of cluster time and at least triples the
// service's request time (own work and calls). Train-Ticket's Spring Boot services need 45-60 s
// at a whole core to start (over 90 s already at their manifests' 500m), so no limit that slows
// their requests lets them start within a minute: their limits are the mildest that triple the
// request time, with the start-up they then take (RollingUpdate keeps the old pod serving
// meanwhile). The table is what the report to the lead lists.
import { describe, expect, it } from "vitest";
import type { Deployment, KObject, Pod } from "../../../src/sim/core/objects.js";
import { ownMs } from "../../../src/sim/workloads/topology/own-time.js";
import { trafficOf } from "../../../src/sim/workloads/topology/traffic.js";
import { deploy, type Sim } from "../helpers/topology.js";

/** system -> service -> [limit (millicores), start-up seconds at that limit]. */
const LIMITS: Record<string, Record<string, [number, number]>> = {
  "simple-micro": { "hello-service": [20, 20], "time-service": [20, 20] },
  "online-boutique": {
    cartservice: [60, 50],
    checkoutservice: [30, 7],
    currencyservice: [50, 18],
    emailservice: [60, 20],
    frontend: [30, 7],
    paymentservice: [40, 23],
    productcatalogservice: [30, 7],
    recommendationservice: [75, 27],
    "redis-cart": [15, 7],
    shippingservice: [30, 7],
  },
  // the services that start within a minute, then Spring Boot ones at their mildest limit
  "train-ticket": {
    "ts-news-service": [20, 10],
    "ts-ticket-office-service": [40, 23],
    "ts-voucher-service": [25, 36],
    "ts-avatar-service": [100, 15],
    "ts-route-service": [150, 300],
    "ts-station-service": [150, 300],
    "ts-order-service": [125, 376],
  },
};

/** Every listed service's main container limited (and requested) at its table value. */
function limited(system: string) {
  return {
    create: (o: KObject) => {
      const lim = LIMITS[system][o.metadata.name ?? ""];
      if (o.kind !== "Deployment" || !lim) return o;
      const d = structuredClone(o) as Deployment;
      const c = d.spec.template.spec!.containers[0];
      c.resources = {
        requests: { ...c.resources?.requests, cpu: `${lim[0]}m` },
        limits: { ...c.resources?.limits, cpu: `${lim[0]}m` },
      };
      return d;
    },
  };
}

/** Seconds from the main container's start to the pod's Ready condition. */
function startupSeconds(p: Pod): number {
  const started = Date.parse(p.status?.containerStatuses?.[0]?.state?.running?.startedAt ?? "");
  const ready = p.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True");
  return (Date.parse(ready?.lastTransitionTime ?? "") - started) / 1000;
}

const latencies = (sim: Sim) => trafficOf(sim.cluster.ctx).state(sim.ns).services;

describe.each(Object.keys(LIMITS))("%s: cpu-throttle limits", (system) => {
  it("each limit starts the service in the time listed and at least triples its request time", () => {
    const base = deploy(system, "base");
    const sim = deploy(system, "throttled", limited(system));
    const settle = system === "train-ticket" ? 480_000 : 120_000;
    base.advance(settle, 2000);
    sim.advance(settle, 2000);
    const before = latencies(base);
    const after = latencies(sim);
    for (const [svc, [limit, startup]] of Object.entries(LIMITS[system])) {
      const pod = sim.pod(svc);
      const m = after.get(svc)!.model;
      const took = startupSeconds(pod);
      // start-up: startupSeconds x startupCpu / limit, then the first readiness probe that passes
      expect(took, svc).toBeGreaterThanOrEqual(startup - 1);
      expect(took, svc).toBeLessThanOrEqual(system === "train-ticket" && startup > 60 ? startup + 15 : 60);
      // the service's own time per request and its request time with its calls
      const rps = trafficOf(sim.cluster.ctx).podRps(pod, m);
      const own = ownMs(sim.cluster.ctx, m, pod, rps);
      expect(own / (m.runtime.cpuPerRps + 1), `${svc} at ${limit}m: own time`).toBeGreaterThanOrEqual(3);
      const ratio = after.get(svc)!.latencyMs / before.get(svc)!.latencyMs;
      expect(ratio, `${svc} at ${limit}m: request time`).toBeGreaterThanOrEqual(3);
      // the pod still serves: Ready, throttled rather than failing
      expect(after.get(svc)!.serving.length, svc).toBe(1);
    }
  }, 300_000);
});
