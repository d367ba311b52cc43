// Chaos in a namespace of its own, as Chaos Mesh installs keep it: an experiment in `chaos-mesh`
// selects pods of another namespace through spec.selector.namespaces (clusterScoped, the chart's
// default: helm/chaos-mesh/values.yaml; pkg/selector/pod/selector.go lists each namespace of the
// selector), an empty list means the experiment's own namespace (the webhook's default,
// api/v1alpha1/common_webhook.go PodSelector.Default), and every event of the experiment is
// recorded on it, in its namespace (controllers/utils/recorder/recorder.go makeEvent takes the
// namespace of the object the event is about): none reaches the namespace of the pods.
import { describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { ChaosObject } from "../../../src/sim/chaos/spec.js";
import type { Event } from "../../../src/sim/core/objects.js";
import { app, chaosCluster, NS } from "./chaos-helpers.js";

const CM = "chaos-mesh";

function inChaosMesh(t: ReturnType<typeof chaosCluster>, name: string, namespaces?: string[]) {
  const { registry, runtime } = t.ctx;
  if (!registry.tryGet(R("Namespace"), undefined, CM))
    registry.create(R("Namespace"), undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: CM },
    });
  registry.create(R("StressChaos"), CM, {
    apiVersion: "chaos-mesh.org/v1alpha1",
    kind: "StressChaos",
    metadata: { name, namespace: CM },
    spec: {
      mode: "one",
      selector: { ...(namespaces ? { namespaces } : {}), labelSelectors: { app: "web" } },
      stressors: { cpu: { workers: 10, load: 100 } },
    },
  });
  runtime.drain();
  return registry.get(R("StressChaos"), CM, name) as ChaosObject;
}

const eventsIn = (t: ReturnType<typeof chaosCluster>, ns: string) =>
  (t.ctx.registry.list(R("Event"), ns) as Event[]).map(
    (e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}: ${e.message}`,
  );

describe("an experiment in chaos-mesh", () => {
  it("injects the pods of the namespace its selector names, and records its events beside itself", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web"));
    const before = eventsIn(t, NS);
    const o = inChaosMesh(t, "shop-cpu-stress", [NS]);
    const [rec] = o.status!.experiment.containerRecords!;
    expect(rec).toMatchObject({ id: `${NS}/${pod.metadata.name}/web`, phase: "Injected" });
    expect(t.faults.of(pod.metadata.uid!, "stress")).toHaveLength(1);
    const own = eventsIn(t, CM);
    expect(own).toContain("StressChaos/shop-cpu-stress Started: Experiment has started");
    expect(own).toContain(`StressChaos/shop-cpu-stress Applied: Successfully apply chaos for ${rec.id}`);
    // nothing of the experiment in the pods' namespace
    expect(eventsIn(t, NS).filter((e) => !before.includes(e) && /chaos/i.test(e))).toEqual([]);

    // deleted: recovered through its finalizer; those events stay in chaos-mesh too
    t.ctx.registry.delete(R("StressChaos"), CM, "shop-cpu-stress");
    t.ctx.runtime.drain();
    expect(t.ctx.registry.tryGet(R("StressChaos"), CM, "shop-cpu-stress")).toBeUndefined();
    expect(t.faults.of(pod.metadata.uid!, "stress")).toEqual([]);
    expect(eventsIn(t, CM)).toContain("StressChaos/shop-cpu-stress Deleted: Experiment has been deleted");
    expect(eventsIn(t, NS).filter((e) => /chaos/i.test(e))).toEqual([]);
  });

  it("without selector.namespaces selects in its own namespace: the pods elsewhere are left alone", () => {
    const t = chaosCluster();
    const [pod] = t.deploy(app("web"));
    const o = inChaosMesh(t, "no-namespaces");
    expect(o.status!.experiment.containerRecords).toBeUndefined();
    expect(eventsIn(t, CM)).toContain(
      "StressChaos/no-namespaces Failed: Failed to select targets: no pod is selected",
    );
    expect(t.faults.of(pod.metadata.uid!, "stress")).toEqual([]);
  });
});
