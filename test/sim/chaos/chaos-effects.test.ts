// What the injections do to pods, through the real kubelet, endpoints and metrics: pod-failure's
// pause image (Running but not Ready, out of the Service), pod-kill, container-kill, CPU pinned at
// the limit, memory held (and OOM-killed under a small limit), flapping probes under netem.
import { describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { ChaosObject } from "../../../src/sim/chaos/spec.js";
import type { Container, Endpoints, Event } from "../../../src/sim/core/objects.js";
import { SimMetrics } from "../../../src/sim/metrics/source.js";
import {
  app,
  type ChaosTest,
  chaos,
  chaosCluster,
  ctrStatus,
  isReady,
  NS,
  podOfRecord,
} from "./chaos-helpers.js";

const MiB = 1024 * 1024;

function service(t: ChaosTest, name: string) {
  t.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 80 }] },
  });
}

/** metrics-server of a test cluster: it scrapes from the start, its window needs the history. */
const metricsServers = new WeakMap<ChaosTest, SimMetrics>();
function withMetrics(): ChaosTest {
  const t = chaosCluster();
  metricsServers.set(t, new SimMetrics(t.ctx));
  return t;
}

/** The container's usage as metrics-server reports it ({cpu: milli, mem: bytes}). */
function top(t: ChaosTest, pod: string) {
  const m = metricsServers
    .get(t)!
    .podMetrics(NS)
    .find((x) => x.metadata.name === pod);
  if (!m) return undefined;
  const cpu = (q: string) =>
    q.endsWith("n")
      ? Number(q.slice(0, -1)) / 1e6
      : q.endsWith("m")
        ? Number(q.slice(0, -1))
        : Number(q) * 1000;
  const unit: Record<string, number> = { Ki: 1024, Mi: MiB, Gi: 1024 * MiB };
  const mem = (q: string) => Number(q.slice(0, -2)) * (unit[q.slice(-2)] ?? Number.NaN);
  return Object.fromEntries(
    (m.containers as { name: string; usage: { cpu: string; memory: string } }[]).map((c) => [
      c.name,
      { cpu: cpu(c.usage.cpu), mem: mem(c.usage.memory) },
    ]),
  );
}

describe("PodChaos", () => {
  it("pod-failure: Running but not Ready, out of the Service, until deleted (images come back)", () => {
    const t = chaosCluster();
    t.deploy(app("web", { sidecar: true }));
    service(t, "web");
    t.create(chaos("PodChaos", "pod-fail", { action: "pod-failure", duration: "1200s", gracePeriod: 0 }));
    const name = podOfRecord(t.recordIds("PodChaos", "pod-fail")[0]);
    let pod = t.pod(name)!;
    expect(pod.spec.containers.map((c: Container) => c.image)).toEqual([
      "gcr.io/google-containers/pause:latest",
      "gcr.io/google-containers/pause:latest",
    ]);
    expect(pod.metadata.annotations).toEqual({
      "chaos-mesh-pod-fail-pod-failure-web-normal-image": "nginx:1.25",
      "chaos-mesh-pod-fail-pod-failure-sidecar-busybox-normal-image": "busybox:1.35",
    });
    t.run(60_000);
    pod = t.pod(name)!;
    expect(pod.status!.phase).toBe("Running");
    expect(isReady(pod)).toBe(false);
    expect(ctrStatus(pod, "web")).toMatchObject({
      ready: false,
      restartCount: 1,
      image: "gcr.io/google-containers/pause:latest",
    });
    expect(ctrStatus(pod, "web")!.state!.running).toBeDefined();
    // Chaos Mesh swaps only the image (podfailure/impl.go): the sidecar's `sh` is not in pause, so
    // runc cannot start it and it crash-loops: 0/2
    expect(ctrStatus(pod, "sidecar-busybox")).toMatchObject({
      ready: false,
      lastState: { terminated: { exitCode: 128, reason: "StartError" } },
    });
    expect(t.eventsOf(name)).toContain("Killing: Container web definition changed, will be restarted");
    expect(t.eventsOf(name).some((e) => e.startsWith("Unhealthy: Readiness probe failed: Get"))).toBe(true);
    const ep = t.get("Endpoints", "web") as Endpoints;
    expect(ep.subsets![0].addresses).toBeUndefined();
    expect(ep.subsets![0].notReadyAddresses!.map((a) => a.targetRef?.name)).toEqual([name]);
    expect(t.faults.of(pod.metadata.uid, "pod-failure")).toHaveLength(1);

    t.remove("PodChaos", "pod-fail");
    pod = t.pod(name)!;
    expect(pod.spec.containers.map((c: Container) => c.image)).toEqual(["nginx:1.25", "busybox:1.35"]);
    expect(pod.metadata.annotations).toBeUndefined(); // an empty map is not stored (omitempty)
    t.until("the pod to be Ready again", () => isReady(t.pod(name)));
    expect(
      (t.get("Endpoints", "web") as Endpoints).subsets![0].addresses!.map((a) => a.targetRef?.name),
    ).toEqual([name]);
  });

  it("pod-kill deletes the pod with spec.gracePeriod; the replacement is not injected", () => {
    const t = chaosCluster();
    const [old] = t.deploy(app("web"));
    t.create(chaos("PodChaos", "kill", { action: "pod-kill", gracePeriod: 0 }));
    expect(t.pod(old.metadata.name!)).toBeUndefined();
    const [fresh] = t.until(
      "a replacement",
      () => t.pods().length === 1 && t.pods().every(isReady) && t.pods(),
    );
    expect(fresh.metadata.uid).not.toBe(old.metadata.uid);
    expect(t.faults.forPod(fresh.metadata.uid)).toEqual([]);
    expect(t.statusOf("PodChaos", "kill").experiment).toMatchObject({
      desiredPhase: "Run",
      containerRecords: [{ id: `${NS}/${old.metadata.name}`, phase: "Injected", injectedCount: 1 }],
    });
    t.remove("PodChaos", "kill");
    expect(t.get("PodChaos", "kill")).toBeUndefined();
  });

  it("container-kill restarts the named container (exit 137), once", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web", { sidecar: true }));
    t.create(chaos("PodChaos", "ck", { action: "container-kill", containerNames: ["web"] }));
    expect(t.recordIds("PodChaos", "ck")).toEqual([`${NS}/${pod.metadata.name}/web`]);
    t.until(
      "the container to restart",
      () => ctrStatus(t.pod(pod.metadata.name!), "web")?.restartCount === 1,
    );
    const st = ctrStatus(t.pod(pod.metadata.name!), "web");
    expect(st!.lastState!.terminated).toMatchObject({ exitCode: 137, reason: "Error" });
    expect(ctrStatus(t.pod(pod.metadata.name!), "sidecar-busybox")!.restartCount).toBe(0);
    t.run(120_000);
    expect(ctrStatus(t.pod(pod.metadata.name!), "web")!.restartCount).toBe(1);
    expect(isReady(t.pod(pod.metadata.name!))).toBe(true);
  });
});

describe("StressChaos", () => {
  it("cpu: the target container sits at its CPU limit; back to baseline once deleted", () => {
    const t = withMetrics();
    const [pod] = t.deploy(app("web", { sidecar: true }));
    t.run(30_000); // metrics-server's warm-up: two scrapes
    const before = top(t, pod.metadata.name!)!;
    expect(before.web.cpu).toBeLessThan(250);
    t.create(chaos("StressChaos", "cpu-stress", { stressors: { cpu: { workers: 10, load: 100 } } }));
    t.run(2_000);
    // metrics-server still serves the window before the injection
    expect(top(t, pod.metadata.name!)!.web.cpu).toBe(before.web.cpu);
    t.run(30_000); // a whole window with the stressors
    const during = top(t, pod.metadata.name!)!;
    expect(during.web.cpu).toBe(500); // wants 10 cores, throttled at the 500m limit
    expect(during["sidecar-busybox"].cpu).toBeLessThan(50); // the sidecar is not stressed
    t.remove("StressChaos", "cpu-stress");
    t.run(30_000);
    // what the reference's check needs: below half the limit again, a window later
    expect(top(t, pod.metadata.name!)!.web.cpu).toBeLessThan(250);
  });

  it("memory: +1280Mi under a 2000Mi limit", () => {
    const t = withMetrics();
    const [pod] = t.deploy(app("web"));
    t.run(30_000);
    const before = top(t, pod.metadata.name!)!.web.mem;
    t.create(
      chaos("StressChaos", "memory-stress", { stressors: { memory: { workers: 1, size: "1280MiB" } } }),
    );
    t.run(16_000); // the working set of the next scrape
    // the stressor's 1280Mi on top of what the application holds (which may move a little)
    expect((top(t, pod.metadata.name!)!.web.mem - before) / MiB).toBeCloseTo(1280, -1);
    expect(ctrStatus(t.pod(pod.metadata.name!), "web")!.restartCount).toBe(0);
  });

  // The stressor is charged to the container's cgroup and lives in its PID namespace: the OOM
  // kill (the whole cgroup on cgroup v2) takes it too, Chaos Mesh does not start it again, and the
  // container restarts clean (the record still says Injected).
  it("memory over a 1000Mi limit: OOMKilled once; the stressor dies with it and the restart is clean", () => {
    const t = chaosCluster();
    const resources = {
      requests: { cpu: "100m", memory: "300Mi" },
      limits: { cpu: "500m", memory: "1000Mi" },
    };
    const [pod] = t.deploy(app("web", { resources }));
    t.create(
      chaos("StressChaos", "memory-stress", { stressors: { memory: { workers: 1, size: "1280MiB" } } }),
    );
    const name = pod.metadata.name!;
    t.until("OOMKilled", () => ctrStatus(t.pod(name), "web")?.lastState?.terminated?.reason === "OOMKilled");
    expect(t.eventsOf(name).some((e) => e.startsWith("OOMKilling: Memory cgroup out of memory"))).toBe(true);
    t.until("Ready again", () => isReady(t.pod(name)), 60_000);
    t.run(120_000);
    expect(ctrStatus(t.pod(name), "web")).toMatchObject({ restartCount: 1, ready: true });
    expect(t.faults.forPod(pod.metadata.uid)).toEqual([]);
    expect(t.statusOf("StressChaos", "memory-stress").experiment.containerRecords?.[0]?.phase).toBe(
      "Injected",
    );
    t.remove("StressChaos", "memory-stress"); // nothing left to recover: it goes at once
    expect(t.get("StressChaos", "memory-stress")).toBeUndefined();
  });
});

describe("NetworkChaos and probes", () => {
  it("delay 1000ms: the readiness probe (1 s timeout) fails, the pod leaves the Service; back when deleted", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web"));
    const name = pod.metadata.name!;
    t.create(
      chaos("NetworkChaos", "network-delay", {
        action: "delay",
        delay: { latency: "1000ms", correlation: "0" },
        direction: "to",
      }),
    );
    t.until("not ready", () => !isReady(t.pod(name)), 60_000);
    expect(t.eventsOf(name).at(-1)).toMatch(/^Unhealthy: Readiness probe failed/);
    t.remove("NetworkChaos", "network-delay");
    t.until("ready", () => isReady(t.pod(name)), 60_000);
  });

  it("loss 50%: about half the probes fail (flapping), deterministically", () => {
    const failures = () => {
      const t = chaosCluster();
      const [pod] = t.deploy(
        app("web", { probe: { httpGet: { path: "/", port: 80 }, periodSeconds: 2, failureThreshold: 1 } }),
      );
      const name = pod.metadata.name!;
      t.create(
        chaos("NetworkChaos", "network-loss", {
          action: "loss",
          loss: { loss: "50", correlation: "0" },
          direction: "to",
        }),
      );
      const seen = new Set<boolean>();
      for (let i = 0; i < 100; i++) {
        t.run(2_000);
        seen.add(isReady(t.pod(name)));
      }
      // failures after startup (the application answers, the network loses the packets)
      const ev = (t.ctx.registry.list(R("Event"), NS) as Event[]).find(
        (e) => e.involvedObject.name === name && e.reason === "Unhealthy" && !e.message!.includes("refused"),
      );
      return { count: ev?.count ?? 0, flapped: seen.size === 2 };
    };
    const a = failures();
    expect(a.flapped).toBe(true);
    expect(a.count).toBeGreaterThan(30);
    expect(a.count).toBeLessThan(70);
    expect(failures()).toEqual(a);
  });
});

describe("IOChaos", () => {
  const io = {
    action: "latency",
    volumePath: "/var/log/mysql",
    path: "/var/log/mysql/**/*",
    delay: "5s",
    percent: 50,
  };

  it("injects the container that mounts the volume; deleting it with the pod alive recovers and goes", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web", { volume: true, sidecar: true }));
    t.create(chaos("IOChaos", "disk-io", io));
    expect(t.faults.of(pod.metadata.uid, "io")).toEqual([
      {
        kind: "io",
        action: "latency",
        volumePath: "/var/log/mysql",
        path: "/var/log/mysql/**/*",
        delayMs: 5000,
        percent: 50,
        containers: ["web"],
      },
    ]);
    t.remove("IOChaos", "disk-io");
    expect(t.get("IOChaos", "disk-io")).toBeUndefined();
    expect(t.faults.forPod(pod.metadata.uid)).toEqual([]);
  });

  it("fails to inject a container without that mount", () => {
    const t = chaosCluster();
    t.deploy(app("web"));
    t.create(chaos("IOChaos", "disk-io", io));
    expect(t.cond("IOChaos", "disk-io")).toMatchObject({ Selected: "True", AllInjected: "False" });
    expect(t.eventsOf("disk-io").at(-2)).toMatch(
      /^Failed: Failed to apply chaos: volume path \/var\/log\/mysql is not a mount point/,
    );
  });

  it("does not hold up a namespace deletion: recovery reaches the pod while it terminates", () => {
    const t = chaosCluster();
    t.deploy(app("web", { volume: true }));
    t.create(chaos("IOChaos", "disk-io", io));
    t.ctx.registry.delete(R("Namespace"), undefined, NS);
    t.until("the namespace to go", () => !t.ctx.registry.tryGet(R("Namespace"), undefined, NS), 120_000);
  });

  it("hangs on its finalizer when the injected pod is gone, until finalizers are patched to []", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web", { volume: true }));
    t.create(chaos("IOChaos", "disk-io", io));
    t.remove("Pod", pod.metadata.name!);
    t.until("the pod to go", () => !t.pod(pod.metadata.name!));
    t.remove("IOChaos", "disk-io");
    t.run(30_000);
    const o = t.get("IOChaos", "disk-io") as ChaosObject;
    expect(o.metadata.deletionTimestamp).toBeDefined();
    expect(o.metadata.finalizers).toEqual(["chaos-mesh/records"]);
    expect(o.status!.experiment.containerRecords?.[0]?.phase).toBe("Injected");
    expect(t.eventsOf("disk-io")).toContain(
      `Failed: Failed to recover chaos: pods "${pod.metadata.name}" not found`,
    );
    t.edit("IOChaos", "disk-io", (x) => {
      x.metadata.finalizers = [];
    });
    expect(t.get("IOChaos", "disk-io")).toBeUndefined();
  });

  it("hangs too when the injected container restarted (the injection went with the process)", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web", { volume: true }));
    const name = pod.metadata.name!;
    t.create(chaos("IOChaos", "disk-io", io));
    t.create(chaos("PodChaos", "ck", { action: "container-kill", containerNames: ["web"] }));
    t.until("the restart", () => ctrStatus(t.pod(name), "web")?.restartCount === 1 && isReady(t.pod(name)));
    expect(t.faults.of(pod.metadata.uid, "io")).toEqual([]);
    t.remove("IOChaos", "disk-io");
    t.run(10_000);
    expect(t.get("IOChaos", "disk-io")?.metadata.finalizers).toEqual(["chaos-mesh/records"]);
    expect(
      t
        .eventsOf("disk-io")
        .some((e) => /^Failed: Failed to recover chaos: .*restarted since injection/.test(e)),
    ).toBe(true);
    t.edit("IOChaos", "disk-io", (x) => {
      x.metadata.finalizers = [];
    });
    expect(t.get("IOChaos", "disk-io")).toBeUndefined();
  });
});
