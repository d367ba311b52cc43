// DaemonSet controller: a pod per fitting node, pinned by node affinity; rolling update within
// maxUnavailable. The pods name a scheduler nobody runs, so neither the default scheduler nor a
// kubelet touches them and the test decides when they are Ready.
import { describe, expect, it } from "vitest";
import type { DaemonSet, Pod, PodSpec } from "../../../src/sim/core/objects.js";
import { image, testCluster } from "./workloads-helpers.js";

const NODES = ["n1", "n2", "n3"].map((name) => ({ name, cpu: "4", memory: "8Gi", pods: 110 }));

function daemonSet(name: string, img: string, podSpec: Partial<PodSpec> = {}): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { schedulerName: "by-the-test", containers: [{ name: "agent", image: img }], ...podSpec },
      },
    },
  };
}

const nodeOf = (p: Pod): string =>
  p.spec.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms[0]
    .matchFields![0].values![0];

describe("DaemonSet controller", () => {
  it("puts one pod on every fitting node and rolls them within maxUnavailable", () => {
    const t = testCluster(NODES);
    t.create(daemonSet("agent", "agent:1", { nodeSelector: { "kubernetes.io/hostname": "n2" } }));
    expect(t.pods().map(nodeOf)).toEqual(["n2"]);
    expect(t.get("DaemonSet", "agent").status).toMatchObject({
      desiredNumberScheduled: 1,
      currentNumberScheduled: 1,
      numberReady: 0,
      numberUnavailable: 1,
    });

    t.edit("DaemonSet", "agent", (ds) => {
      delete ds.spec.template.spec!.nodeSelector;
    });
    // the n2 pod was of the old revision and not available: replaced at once
    expect(t.pods().map(nodeOf).sort()).toEqual(["n1", "n2", "n3"]);
    const pod = t.pods()[0];
    expect(pod.metadata.labels).toMatchObject({ app: "agent", "pod-template-generation": "2" });
    expect(pod.spec.tolerations!.map((x) => x.key)).toContain("node.kubernetes.io/unschedulable");
    t.readyAll(t.pods());
    expect(t.get("DaemonSet", "agent").status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
      updatedNumberScheduled: 3,
      numberMisscheduled: 0,
    });

    t.edit("DaemonSet", "agent", (ds) => {
      ds.spec.template.spec!.containers[0].image = "agent:2";
    });
    for (let step = 0; step < 3; step++) {
      const fresh = t.pods().filter((p) => image(p) === "agent:2" && p.status?.phase !== "Running");
      expect(fresh).toHaveLength(1); // maxUnavailable 1: one node at a time
      expect(t.pods()).toHaveLength(3);
      t.readyAll(fresh);
    }
    expect(t.pods().map(image)).toEqual(["agent:2", "agent:2", "agent:2"]);
    expect(
      t
        .list("ControllerRevision")
        .map((r) => r.revision)
        .sort(),
    ).toEqual([1, 2, 3]);
  });
});
