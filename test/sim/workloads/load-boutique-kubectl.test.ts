// Online-Boutique under load and over time, on a pinned clock, read with the real kubectl.
// Sources:
// - GoogleCloudPlatform/microservices-demo v0.3.8, src/loadgenerator/Dockerfile: ENTRYPOINT
//   locust --host="http://${FRONTEND_ADDR}" --headless -u "${USERS:-10}" (Locust's spawn rate
//   default, 1/s); src/loadgenerator/locustfile.py: WebsiteUser, wait_time = between(1, 10), so
//   each user sends a request, waits for its answer, thinks, and sends the next (a closed loop).
// - src/adservice/build.gradle (CreateStartScripts, applicationName AdService) and Gradle's start
//   script template: java $DEFAULT_JVM_OPTS $JAVA_OPTS $AD_SERVICE_OPTS; the JVM's -Xmx.
// - The kernel's memory cgroup OOM killer (mm/memcontrol.c, mm/oom_kill.c): a container past its
//   limit is killed with SIGKILL, which the kubelet reports as exit 137, reason OOMKilled.
// - Queueing: a server past its capacity builds a backlog at the difference of the rates; the
//   interactive response time law R = N / X - Z bounds what a closed loop of N users queues.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../../src/sim/core/objects.js";
import { type LoadSim, loadSim, readyPods } from "./load-helpers.js";

/** `kubectl top pod --containers` as {pod/container: [milli, Mi]}. */
async function top(s: LoadSim): Promise<Map<string, [number, number]>> {
  const r = await s.kubectl(["top", "pod", "--containers", "--no-headers"]);
  expect(r.exitCode, r.stderr).toBe(0);
  const out = new Map<string, [number, number]>();
  for (const l of r.stdout.trim().split("\n")) {
    const [pod, c, cpu, mem] = l.trim().split(/\s+/);
    out.set(`${pod.replace(/-[a-z0-9]+-[a-z0-9]+$/, "")}/${c}`, [
      Number.parseInt(cpu, 10),
      Number.parseInt(mem, 10),
    ]);
  }
  return out;
}

describe("a USERS surge saturates the frontend and what it calls most; scaling out drains them", () => {
  let s: LoadSim;
  beforeAll(async () => {
    s = await loadSim("online-boutique", "surge");
    s.advance(30_000); // two scrapes: kubectl top has a window
  }, 120_000);
  afterAll(() => s?.stop());

  it("15x the users: CPU at the limit, the frontend's calls time out; two replicas each: healthy again", async () => {
    const calm = await top(s);
    expect(calm.get("frontend/server")![0]).toBeLessThan(50);
    expect(s.svc("frontend").failRate).toBe(0);

    s.setEnv("loadgenerator", "USERS", "150");
    s.advance(60_000);
    const busy = await top(s);
    // both run at about their 200m limit (the CFS quota caps what top shows)
    expect(busy.get("frontend/server")![0]).toBeGreaterThanOrEqual(180);
    expect(busy.get("productcatalogservice/server")![0]).toBeGreaterThanOrEqual(180);
    // the queues are past the frontend's wait: its calls fail with the gRPC deadline
    expect(s.svc("productcatalogservice").queueMs).toBeGreaterThan(1000);
    const fe = readyPods(s, "frontend")[0];
    const logs = await s.kubectl(["logs", fe.metadata.name!, "-c", "server", "--since=30s"]);
    expect(logs.stdout).toContain("rpc error: code = DeadlineExceeded desc = context deadline exceeded");
    // a closed loop: the frontend's own wait stays bounded by the users (R = N / X - Z)
    expect(s.svc("frontend").queueMs).toBeLessThan(5000);

    // scale out what top shows at its limit (the frontend, the catalog, currency, recommendations...)
    const hot = [...busy]
      .filter(([k, [cpu]]) => k.endsWith("/server") && cpu >= 150)
      .map(([k]) => k.split("/")[0]);
    expect(hot).toContain("frontend");
    for (const d of hot) s.scale(d, 2);
    // what the saturated catalog hid comes up next: checkouts that stopped at it never reached
    // currency or email; once they get through, scale out what top shows at its limit then
    const scaled = new Set(hot);
    for (let round = 0; round < 3; round++) {
      s.advance(60_000);
      const next = [...(await top(s))]
        .filter(([k, [cpu]]) => k.endsWith("/server") && cpu >= 150)
        .map(([k]) => k.split("/")[0])
        .filter((d) => !scaled.has(d));
      if (!next.length) break;
      for (const d of next) {
        s.scale(d, 2);
        scaled.add(d);
      }
    }
    s.advance(90_000);
    expect(readyPods(s, "frontend")).toHaveLength(2);
    expect(s.svc("productcatalogservice").queueMs).toBeLessThan(50);
    expect(s.svc("frontend").failRate).toBe(0);
    s.advance(30_000);
    const after = await top(s);
    for (const [k, [cpu]] of after)
      if (k.startsWith("productcatalogservice/server")) expect(cpu).toBeLessThan(200);
  }, 240_000);
});

describe("adservice with a heap maximum above its memory limit is OOM-killed every few minutes", () => {
  let s: LoadSim;
  beforeAll(async () => {
    s = await loadSim("online-boutique", "leak");
  }, 120_000);
  afterAll(() => s?.stop());

  const ad = (): Pod => readyPods(s, "adservice")[0] ?? s.pod("adservice");
  const status = (p: Pod) => p.status?.containerStatuses?.find((c) => c.name === "server");

  it("the working set grows to the limit, the kernel kills it (137, OOMKilled), again after the restart; a bound below the limit ends it", async () => {
    s.setEnv("adservice", "JAVA_OPTS", "-Xmx4g");
    s.advance(60_000);
    const first = ad();
    expect(status(first)?.restartCount).toBe(0);
    const m1 = (await top(s)).get("adservice/server")![1];
    s.advance(120_000);
    const m2 = (await top(s)).get("adservice/server")![1];
    expect(m2).toBeGreaterThan(m1 + 300);

    s.advance(180_000);
    const p = s.pod("adservice");
    expect(status(p)?.restartCount).toBeGreaterThanOrEqual(1);
    const got = await s.kubectl([
      "get",
      "pod",
      p.metadata.name!,
      "-o",
      'jsonpath={.status.containerStatuses[?(@.name=="server")].lastState.terminated.reason} {.status.containerStatuses[?(@.name=="server")].lastState.terminated.exitCode}',
    ]);
    expect(got.stdout).toBe("OOMKilled 137");
    // a restart looks like a fix: small again, then it grows back and is killed again
    s.advance(360_000);
    expect(status(s.pod("adservice"))?.restartCount).toBeGreaterThanOrEqual(2);
    const events = await s.kubectl([
      "get",
      "events",
      "--field-selector",
      "reason=OOMKilling",
      "--no-headers",
    ]);
    expect(events.stdout).toContain("Memory cgroup out of memory");

    // the bound restored below the limit: the heap stops at it, no more kills
    s.setEnv("adservice", "JAVA_OPTS", "-Xmx512m");
    s.advance(120_000);
    const fixed = ad();
    s.advance(600_000);
    expect(status(s.pod("adservice"))?.restartCount).toBe(0);
    expect(s.pod("adservice").metadata.name).toBe(fixed.metadata.name);
    expect((await top(s)).get("adservice/server")![1]).toBeLessThan(600);
  }, 300_000);
});
