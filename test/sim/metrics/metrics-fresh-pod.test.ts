// When a new pod's metrics first appear, as on k3s v1.31.
//
// What the sources say:
// - metrics-server runs with --metric-resolution=15s (k3s manifests/metrics-server; upstream's
//   components.yaml) and keeps the last two points of each container (pkg/storage/pod.go
//   podStorage). GetMetrics lists a pod only when every container has a previous point. A point
//   is the kubelet's: /metrics/resource's container_cpu_usage_seconds_total and
//   container_memory_working_set_bytes with their timestamps, and container_start_time_seconds
//   (pkg/kubelet/metrics/collectors/resource_metrics.go); pkg/scraper/client/resource/decode.go
//   drops a container whose CPU or memory reads 0. Memory needs the same two points as CPU: the
//   pod is listed with both or not at all (resourceUsage takes the CPU rate over the window and
//   the memory of the last point).
// - A fresh container gets a synthetic previous point at its start (CPU 0) when its point is
//   10 s (freshContainerMinMetricsResolution) to 15 s (the resolution) after its start: it is
//   listed after one scrape. Otherwise it needs a second scrape, 15 s later.
// - On k3s (containerd, the CRI stats provider) the kubelet takes CPU and memory from cAdvisor
//   (pkg/kubelet/stats/cri_stats_provider.go addCadvisorContainerCPUAndMemoryStats), whose
//   housekeeping runs at the container's start and every 10 s after (cadvisor_linux.go
//   defaultHousekeepingInterval; manager/container.go housekeeping). The point's timestamp is the
//   last housekeeping: at a scrape a s after the start it is start + 10 s for 10 <= a < 20, so the
//   fresh rule holds exactly when the first scrape comes 10-15 s after the start.
//
// So on k3s a new pod is listed at its first scrape at least 10 s after its container started,
// or 15 s later: 10 s to 25 s after the start (a for a in [10, 15], a + 15 for a in (0, 10)).
// The embedded cluster lists it at the same scrape (its points carry the scrape instant rather
// than cAdvisor's housekeeping instant, which moves the reported window, 10-15 s on k3s for a
// fresh pod, not when the pod appears).
//
// The reference's memory-stress check after the canonical fix (kubectl rollout restart) reads
// the metrics for 10 s after the new pod is Ready, every 2 s (systems.json referenceVerification).
// It passes only if the first scrape 10 s after the container's start comes within 10 s of
// Ready: on k3s as here, a pod Ready d s after its start passes when the scrape phase a falls in
// [10, min(15, d + 10)] (or a <= d - 5): for a pod Ready 2 s after start, 2 chances in 15. The
// test below measures one such restart and states which way it went, with the numbers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { ManualClock, parseStamp, stamp } from "../../../src/sim/core/clock.js";
import type { Pod } from "../../../src/sim/core/objects.js";
import { SimMetrics } from "../../../src/sim/metrics/source.js";
import { podManifest, startCluster, type TestCluster } from "../helpers/exec.js";

describe("metrics-server's first listing of a new pod (pkg/storage/pod.go)", () => {
  let cluster: EmbeddedCluster;
  let metrics: SimMetrics;
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  let t0 = 0;

  beforeAll(() => {
    cluster = new EmbeddedCluster({ ...simData(), clock, autoDrain: false });
    cluster.ctx.registry.create(R("Namespace"), undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "fresh" },
    });
    t0 = clock.now();
    metrics = new SimMetrics(cluster.ctx); // scrapes at t0, t0 + 15 s, ...
  });
  afterAll(async () => {
    metrics.stop();
    await cluster.stop();
  });

  /** A pod whose only container started now, as the kubelet reports it (no node: no kubelet acts). */
  function startPod(name: string): number {
    const now = clock.now();
    const pod = podManifest("fresh", name, [{ name: "app", image: "nginx:1.25" }]);
    cluster.ctx.registry.create(R("Pod"), "fresh", {
      ...pod,
      status: {
        phase: "Running",
        containerStatuses: [
          { name: "app", ready: true, restartCount: 0, state: { running: { startedAt: stamp(clock, now) } } },
        ],
      },
    } as Pod);
    return now;
  }

  const listed = (name: string) => metrics.podMetrics("fresh").some((m) => m.metadata.name === name);

  // a: seconds from the container's start to the first scrape after it (15: it started at a
  // scrape instant, just after that scrape; the kubelet's point at 15 s is the 10 s housekeeping)
  it.each([1, 5, 9, 10, 12, 14, 15])("first scrape %i s after the start", (a) => {
    // start a s before the next scrape
    const next = t0 + Math.ceil((clock.now() - t0 + a * 1000 + 1) / 15_000) * 15_000;
    clock.advance(next - a * 1000 - clock.now());
    const started = startPod(`p${a}`);
    let appeared: number | undefined;
    while (appeared === undefined && clock.now() - started < 40_000) {
      clock.advance(500);
      if (listed(`p${a}`)) appeared = clock.now() - started;
    }
    expect(appeared).toBe(a >= 10 ? a * 1000 : (a + 15) * 1000);
    // its window: from its start when it was fresh (its point 10-15 s old at a scrape 10-20 s
    // after the start), else the 15 s between two scrapes
    const m = metrics.podMetrics("fresh").find((x) => x.metadata.name === `p${a}`);
    // (k3s reports 10 s for a fresh one: its points carry the housekeeping instant)
    expect(m?.window).toBe(a >= 10 ? `${a}s` : a < 5 ? `${a + 15}s` : "15s");
  });
});

describe("the reference's memory-stress check after a rollout restart", () => {
  let t: TestCluster;
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  beforeAll(async () => {
    t = await startCluster(1, clock);
  });
  afterAll(() => t?.stop());

  it("sees the new pod's metrics when the first scrape 10 s after its start falls within 10 s of Ready", async () => {
    const { registry } = t.c.ctx;
    const origin = clock.now(); // metrics-server's first scrape (listen) is here: scrapes every 15 s
    await t.kubectl(["create", "namespace", "mem"]);
    await t.kubectl(["-n", "mem", "create", "deployment", "mem", "--image=nginx:1.25"]);
    const podOf = () =>
      (registry.list(R("Pod"), "mem") as Pod[]).filter((p) => !p.metadata.deletionTimestamp)[0] as
        | Pod
        | undefined;
    const ready = (p?: Pod) => p?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
    for (let i = 0; i < 400 && !ready(podOf()); i++) clock.advance(100);
    clock.advance(40_000); // the first pod has metrics
    const first = podOf()!.metadata.name;
    await t.kubectl(["-n", "mem", "rollout", "restart", "deployment/mem"]);
    // the new pod: follow it on the cluster clock, 100 ms at a time
    let pod: Pod | undefined;
    for (let i = 0; i < 600; i++) {
      clock.advance(100);
      await new Promise((r) => setImmediate(r));
      pod = (registry.list(R("Pod"), "mem") as Pod[]).find((p) => p.metadata.name !== first && ready(p));
      if (pod) break;
    }
    expect(pod).toBeDefined();
    const name = pod!.metadata.name!;
    const started = parseStamp(clock, pod!.status!.containerStatuses![0].state!.running!.startedAt);
    const readyAt = clock.now();
    // the reference polls every 2 s for 10 s from Ready; go on past it to see when it comes
    const top = async () => (await t.kubectl(["-n", "mem", "top", "pod", name])).exitCode === 0;
    let seenWithin10s = false;
    let appeared: number | undefined;
    for (let s = 0; s <= 40 && appeared === undefined; s += 2) {
      if (await top()) {
        appeared = clock.now();
        if (s <= 10) seenWithin10s = true;
      }
      clock.advance(2000);
    }
    const afterStart = (ms: number) => Math.round((ms - started) / 100) / 10;
    // the first scrape after the start, and the rule of pod.go
    const a = afterStart(origin + Math.ceil((started - origin) / 15_000) * 15_000);
    const expected = a >= 10 ? a : a + 15;
    const numbers = `Ready ${afterStart(readyAt)} s, first scrape ${a} s, metrics seen ${afterStart(appeared ?? Number.NaN)} s after the container started`;
    // listed at the first scrape >= 10 s after the start (within one 2 s poll), as on k3s
    expect(afterStart(appeared!), numbers).toBeGreaterThanOrEqual(expected);
    expect(afterStart(appeared!), numbers).toBeLessThan(expected + 2.1);
    // the verdict k3s would give the reference's check for these timings
    const k3sPasses = expected <= afterStart(readyAt) + 10;
    expect(seenWithin10s, numbers).toBe(k3sPasses);
    // With this clock: Ready 0.2 s after the container started, the first scrape 6 s after it
    // (too early for the fresh rule), so the pod is listed at the next scrape, 21 s after the start
    // (seen at the 22.2 s poll), 11 s after the reference stopped looking at 10.2 s: the check
    // fails here, and would fail on k3s with the same phase (and pass only when the first scrape
    // came 10-10.2 s after the start).
    expect(numbers).toBe("Ready 0.2 s, first scrape 6 s, metrics seen 22.2 s after the container started");
    expect(seenWithin10s).toBe(false);
  }, 120_000);
});
