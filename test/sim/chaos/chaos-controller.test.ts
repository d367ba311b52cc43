// The Chaos Mesh experiment controller, driven step by step: selection by selector and mode at
// start (later pods never injected), status records and conditions, the events Chaos Mesh
// records, duration, the pause annotation, and deletion through the finalizer.
import { describe, expect, it } from "vitest";
import type { ChaosObject } from "../../../src/sim/chaos/spec.js";
import type { Deployment } from "../../../src/sim/core/objects.js";
import { app, chaos, chaosCluster, NS, podOfRecord } from "./chaos-helpers.js";

const delay = { action: "delay", delay: { latency: "10ms", correlation: "0" }, direction: "to" };

describe("selection", () => {
  it("mode one injects one Running pod, and writes records, conditions and events as Chaos Mesh does", () => {
    const t = chaosCluster();
    const pods = t.deploy(app("web", { replicas: 3, sidecar: true }));
    t.create(chaos("StressChaos", "cpu-stress", { stressors: { cpu: { workers: 10, load: 100 } } }));

    const o = t.get("StressChaos", "cpu-stress") as ChaosObject;
    expect(o.metadata.finalizers).toEqual(["chaos-mesh/records"]);
    const exp = o.status!.experiment;
    expect(exp.desiredPhase).toBe("Run");
    expect(exp.containerRecords).toHaveLength(1);
    const [rec] = exp.containerRecords!;
    // a container record: the first container of the pod (not the sidecar)
    expect(rec).toMatchObject({ selectorKey: ".", phase: "Injected", injectedCount: 1, recoveredCount: 0 });
    expect(rec.id).toMatch(new RegExp(`^${NS}/web-[a-z0-9]+-[a-z0-9]+/web$`));
    expect(rec.events).toEqual([{ type: "Succeeded", operation: "Apply", timestamp: expect.any(String) }]);
    expect(pods.map((p) => p.metadata.name)).toContain(podOfRecord(rec.id));
    expect(o.status!.conditions).toEqual([
      { type: "Selected", status: "True" },
      { type: "AllInjected", status: "True" },
      { type: "AllRecovered", status: "False" },
      { type: "Paused", status: "False" },
    ]);
    expect(Object.keys(o.status!.instances!)).toEqual([rec.id]);
    expect(t.eventsOf("cpu-stress")).toEqual([
      "FinalizerInited: Finalizer has been inited",
      "Updated: Successfully update finalizer of resource",
      "Started: Experiment has started",
      "Updated: Successfully update desiredPhase of resource",
      `Applied: Successfully apply chaos for ${rec.id}`,
      "Updated: Successfully update records of resource",
    ]);
    // the FaultBook has the stressors on that pod's first container only
    const injected = pods.find((p) => p.metadata.name === podOfRecord(rec.id))!;
    expect(t.faults.of(injected.metadata.uid, "stress")).toEqual([
      { kind: "stress", cpu: { workers: 10, load: 100 }, containers: ["web"] },
    ]);
    for (const p of pods) if (p !== injected) expect(t.faults.forPod(p.metadata.uid)).toEqual([]);
  });

  it.each([
    ["all", undefined, 4],
    ["fixed", "2", 2],
    ["fixed", "9", 4],
    ["fixed-percent", "50", 2],
    ["fixed-percent", "30", 1],
  ])("mode %s (value %s) picks %i of 4 pods", (mode, value, n) => {
    const t = chaosCluster();
    t.deploy(app("web", { replicas: 4 }));
    t.create(chaos("NetworkChaos", "net", { ...delay, mode, ...(value ? { value } : {}) }));
    const ids = t.recordIds("NetworkChaos", "net");
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
    for (const id of ids) expect(id.split("/")).toHaveLength(2); // NetworkChaos records are pods
    const injected = t.pods().filter((p) => t.faults.of(p.metadata.uid, "network").length);
    expect(injected.map((p) => `${NS}/${p.metadata.name}`).sort()).toEqual([...ids].sort());
  });

  it("random-max-percent picks at most that share, and the same seed picks the same pods", () => {
    const pick = (seed: number) => {
      const t = chaosCluster(seed);
      const pods = t
        .deploy(app("web", { replicas: 4 }))
        .map((p) => p.metadata.name!)
        .sort();
      t.create(chaos("NetworkChaos", "net", { ...delay, mode: "random-max-percent", value: "50" }));
      const s = t.statusOf("NetworkChaos", "net");
      return (s.experiment.containerRecords ?? []).map((r) => pods.indexOf(podOfRecord(r.id))).sort();
    };
    expect(pick(7).length).toBeLessThanOrEqual(2);
    expect(pick(7)).toEqual(pick(7));
  });

  it("selects nothing when no Running pod matches, and says so", () => {
    const t = chaosCluster();
    t.deploy(app("web"));
    t.create(chaos("StressChaos", "cpu", { stressors: { cpu: { workers: 1 } } }, "nobody"));
    const s = t.statusOf("StressChaos", "cpu");
    expect(s.experiment.containerRecords).toBeUndefined();
    expect(t.cond("StressChaos", "cpu")).toEqual({
      Selected: "False",
      AllInjected: "False",
      AllRecovered: "False",
      Paused: "False",
    });
    expect(t.eventsOf("cpu")).toContain("Failed: Failed to select targets: no pod is selected");
  });

  it("never injects pods created after the experiment started (scaling out does not spread it)", () => {
    const t = chaosCluster();
    t.deploy(app("web", { replicas: 2 }));
    t.create(chaos("NetworkChaos", "net", { ...delay, mode: "all" }));
    expect(t.recordIds("NetworkChaos", "net")).toHaveLength(2);
    t.edit("Deployment", "web", (d: Deployment) => {
      d.spec.replicas = 4;
    });
    t.until(
      "4 ready pods",
      () => t.pods().length === 4 && t.pods().every((p) => p.status?.phase === "Running"),
    );
    t.run(10_000);
    expect(t.recordIds("NetworkChaos", "net")).toHaveLength(2);
    const injected = t.pods().filter((p) => t.faults.of(p.metadata.uid, "network").length);
    expect(injected).toHaveLength(2);
  });
});

describe("lifecycle", () => {
  it("recovers when the duration is up, and keeps the object", () => {
    const t = chaosCluster();
    t.deploy(app("web"));
    t.create(chaos("PodChaos", "pod-fail", { action: "pod-failure", duration: "30s", gracePeriod: 0 }));
    const [id] = t.recordIds("PodChaos", "pod-fail");
    expect(t.pod(podOfRecord(id))!.spec.containers[0].image).toBe("gcr.io/google-containers/pause:latest");
    t.run(29_000);
    expect(t.cond("PodChaos", "pod-fail").AllInjected).toBe("True");
    t.run(2_000);
    const o = t.get("PodChaos", "pod-fail") as ChaosObject;
    expect(o.status!.experiment.desiredPhase).toBe("Stop");
    expect(o.status!.experiment.containerRecords?.[0]).toMatchObject({
      phase: "Not Injected",
      injectedCount: 1,
      recoveredCount: 1,
    });
    expect(t.cond("PodChaos", "pod-fail")).toMatchObject({ AllInjected: "False", AllRecovered: "True" });
    expect(o.metadata.finalizers).toEqual(["chaos-mesh/records"]);
    expect(t.eventsOf("pod-fail").slice(-4)).toEqual([
      "TimeUp: Time up according to the duration",
      "Updated: Successfully update desiredPhase of resource",
      `Recovered: Successfully recover chaos for ${id}`,
      "Updated: Successfully update records of resource",
    ]);
    expect(t.pod(podOfRecord(id))!.spec.containers[0].image).toBe("nginx:1.25");
  });

  it("recovers on the pause annotation and injects the same pods again when resumed", () => {
    const t = chaosCluster();
    t.deploy(app("web", { replicas: 2 }));
    t.create(chaos("StressChaos", "mem", { stressors: { memory: { workers: 1, size: "256MiB" } } }));
    const [id] = t.recordIds("StressChaos", "mem");
    const uid = t.pod(podOfRecord(id))!.metadata.uid;
    expect(t.faults.of(uid, "stress")).toHaveLength(1);

    t.edit("StressChaos", "mem", (o) => {
      o.metadata.annotations = { "experiment.chaos-mesh.org/pause": "true" };
    });
    expect(t.faults.of(uid, "stress")).toEqual([]);
    expect(t.cond("StressChaos", "mem")).toEqual({
      Selected: "True",
      AllInjected: "False",
      AllRecovered: "True",
      Paused: "True",
    });
    expect(t.statusOf("StressChaos", "mem").experiment.desiredPhase).toBe("Stop");
    expect(t.eventsOf("mem")).toContain("Paused: Experiment has been paused");

    t.edit("StressChaos", "mem", (o) => {
      o.metadata.annotations = { "experiment.chaos-mesh.org/pause": "false" };
    });
    expect(t.recordIds("StressChaos", "mem")).toEqual([id]);
    expect(t.statusOf("StressChaos", "mem").experiment.containerRecords?.[0]).toMatchObject({
      phase: "Injected",
      injectedCount: 2,
      recoveredCount: 1,
    });
    expect(t.faults.of(uid, "stress")).toHaveLength(1);
  });

  it("recovers on delete, then removes its finalizer so the object goes", () => {
    const t = chaosCluster();
    t.deploy(app("web"));
    t.create(chaos("NetworkChaos", "net", delay));
    const [id] = t.recordIds("NetworkChaos", "net");
    t.remove("NetworkChaos", "net");
    expect(t.get("NetworkChaos", "net")).toBeUndefined();
    expect(t.faults.forPod(t.pod(podOfRecord(id))!.metadata.uid)).toEqual([]);
    expect(t.eventsOf("net").slice(-6)).toEqual([
      "Deleted: Experiment has been deleted",
      "Updated: Successfully update desiredPhase of resource",
      `Recovered: Successfully recover chaos for ${id}`,
      "Updated: Successfully update records of resource",
      "FinalizerInited: Finalizer has been removed",
      "Updated: Successfully update finalizer of resource",
    ]);
  });

  it("keeps an injected pod's record when the pod is deleted, and then deletes cleanly", () => {
    const t = chaosCluster();
    t.deploy(app("web"));
    t.create(chaos("StressChaos", "cpu", { stressors: { cpu: { workers: 2, load: 50 } } }));
    const [id] = t.recordIds("StressChaos", "cpu");
    const old = t.pod(podOfRecord(id))!;
    t.remove("Pod", old.metadata.name!);
    t.until(
      "the replacement to run",
      () =>
        t.pods().length === 1 &&
        t.pods()[0].metadata.uid !== old.metadata.uid &&
        t.pods()[0].status?.phase === "Running",
    );
    expect(t.faults.forPod(old.metadata.uid)).toEqual([]);
    expect(t.faults.forPod(t.pods()[0].metadata.uid)).toEqual([]);
    // Chaos Mesh does not revisit its records: the gone pod still shows as injected
    expect(t.statusOf("StressChaos", "cpu").experiment.containerRecords?.[0]).toMatchObject({
      id,
      phase: "Injected",
    });
    t.remove("StressChaos", "cpu");
    expect(t.get("StressChaos", "cpu")).toBeUndefined();
  });
});
