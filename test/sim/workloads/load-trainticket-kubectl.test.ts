// Train-Ticket's gateway: its response timeout and its retries, read from its environment, on a
// pinned clock, seen with the real kubectl. Sources:
// - Spring Boot's relaxed binding of environment variables ("Binding From Environment
//   Variables": upper case, dots to underscores, dashes removed, list indexes as _0_):
//   SPRING_CLOUD_GATEWAY_HTTPCLIENT_RESPONSETIMEOUT -> spring.cloud.gateway.httpclient.response-timeout,
//   SPRING_CLOUD_GATEWAY_DEFAULTFILTERS_0 -> spring.cloud.gateway.default-filters[0],
//   SERVER_TOMCAT_THREADS_MAX -> server.tomcat.threads.max (default 200); DurationStyle for "100ms".
// - spring-cloud-gateway NettyRoutingFilter: a response later than the timeout ends in
//   TimeoutException("Response took longer than timeout: " + Duration) answered 504 GATEWAY_TIMEOUT;
//   RetryGatewayFilterFactory: shortcut Retry=N, retrying 5xx, IOException and TimeoutException.
//   Each request goes down one route (fanout 1), and the line logged for it says the status the
//   gateway answered (504 for a route that timed out, its retries spent), not a fixed 200.
// - Bronson, Aghayev, Charapko, Zhu: "Metastable Failures in Distributed Systems" (HotOS 2021):
//   a trigger (here a slow minute) starts a retry storm that sustains itself after the trigger is
//   gone; SREGym's capacity_decrease_rpc_retry_storm (a capacity cut plus client retries).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoadSim, loadSim, readyPods } from "./load-helpers.js";

let s: LoadSim;
beforeAll(async () => {
  s = await loadSim("train-ticket", "tt-load");
}, 180_000);
afterAll(() => s?.stop());

const GW = "ts-gateway-service";
const logsOf = async (app: string, since = "60s") => {
  const pod = readyPods(s, app)[0] ?? s.pod(app);
  const r = await s.kubectl(["logs", pod.metadata.name!, "--since", since]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
};

describe("Train-Ticket's gateway", () => {
  it("a response timeout shorter than a service's latency: its routes answer 504, the service itself is fine; unset: healthy", async () => {
    expect(s.svc("ts-travel-service").latencyMs).toBeGreaterThan(100);
    // the routes (gateway path segment) of the services slower than the timeout
    const slow = new Set(
      s.cluster.ctx.catalog.byApp
        .get(GW)!
        .routes.filter((r) => s.svc(r.calls[0]).latencyMs > 100)
        .map((r) => /\/api\/v1\/(\w+)\//.exec(r.path.source.replace(/\\\//g, "/"))![1]),
    );
    expect(slow.has("travelservice")).toBe(true);
    s.setEnv(GW, "SPRING_CLOUD_GATEWAY_HTTPCLIENT_RESPONSETIMEOUT", "100ms");
    // the gateway's rollout: a minute to start at full CPU, two under its 500m limit
    s.advance(240_000);
    expect(s.svc(GW).failRate).toBeGreaterThan(0);
    // the routes to services slower than 100 ms (the travel services, the planners...) time out
    const gw = await logsOf(GW, "240s");
    expect(gw).toMatch(
      /504 GATEWAY_TIMEOUT "Response took longer than timeout: PT0\.1S" for request lb:\/\/ts-[a-z-]+/,
    );
    // its log filter's line says the status each request got: the routes that time out, 504
    const filtered = [...gw.matchAll(/LogFilter\s+: \[[^\]]+\] (\S+) \/api\/v1\/(\w+)\/ -> (\d+) \(/g)];
    expect(filtered.some((m) => m[3] === "504")).toBe(true);
    for (const [, , route, status] of filtered) expect(status, route).toBe(slow.has(route) ? "504" : "200");
    // far from the symptom: the travel service answers, only late for this caller
    expect(s.svc("ts-travel-service").failRate).toBe(0);
    expect(await logsOf("ts-travel-service")).not.toContain("ERROR");

    s.setEnv(GW, "SPRING_CLOUD_GATEWAY_HTTPCLIENT_RESPONSETIMEOUT", undefined);
    s.advance(240_000);
    expect(s.svc(GW).failRate).toBe(0);
    const healthy = await logsOf(GW, "30s");
    expect(healthy).not.toContain("504 GATEWAY_TIMEOUT");
    expect(healthy).not.toMatch(/ -> 50\d \(/);
  }, 240_000);

  it("retries keep a service saturated after a slow minute is over, until the retries are lowered", async () => {
    const k = "ts-travel-plan-service";
    // a capacity cut (one Tomcat thread) and the gateway retrying failed requests seven times
    s.setEnv(k, "SERVER_TOMCAT_THREADS_MAX", "1");
    s.setEnv(GW, "SPRING_CLOUD_GATEWAY_DEFAULTFILTERS_0", "Retry=7");
    s.advance(240_000);
    const calm = s.svc(k);
    expect(calm.queueMs).toBeLessThan(100);
    expect(calm.rps).toBeLessThan(calm.capacity);

    // the trigger: a minute in which its own calls are slow (a NetworkChaos delay on its egress)
    s.inject(
      s.pod(k),
      { kind: "network", action: "delay", direction: "to", delayMs: 1000 },
      "networkchaos/tt-load/slow",
    );
    s.advance(60_000);
    s.cluster.ctx.faults.remove("networkchaos/tt-load/slow");
    s.cluster.ctx.runtime.drain();

    // the trigger is gone, its capacity is back, yet the retries hold the queue full
    s.advance(300_000);
    const storm = s.svc(k);
    expect(storm.capacity).toBeGreaterThan(calm.rps);
    expect(storm.rps).toBeGreaterThan(storm.capacity);
    expect(storm.queueMs).toBeGreaterThan(5000);
    // its requests are served, half a minute late (the callers gave up long before)
    const elapsed = [...(await logsOf(k, "120s")).matchAll(/\[elapsed: (\d+) ms\]/g)].map((m) =>
      Number(m[1]),
    );
    expect(elapsed.length).toBeGreaterThan(0);
    expect(Math.min(...elapsed)).toBeGreaterThan(5000);

    // the retries lowered: the load falls under the capacity and the queue drains
    s.setEnv(GW, "SPRING_CLOUD_GATEWAY_DEFAULTFILTERS_0", undefined);
    s.advance(300_000);
    const after = s.svc(k);
    expect(after.queueMs).toBeLessThan(100);
    expect(s.svc(GW).failRate).toBe(0);
  }, 240_000);
});
