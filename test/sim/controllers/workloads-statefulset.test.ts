// StatefulSet controller, driven step by step: ordered start, identity, claims, reverse-order
// rolling update with ControllerRevisions, scale-down from the top, Parallel.
import { describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import type { PodTemplate } from "../../../src/sim/core/objects.js";
import { image, NS, statefulSet, testCluster } from "./workloads-helpers.js";

/** A StatefulSet's ControllerRevision data: its template, as a patch that replaces the whole. */
interface RevisionData {
  spec: { template: PodTemplate & { $patch?: string } };
}

const names = (t: ReturnType<typeof testCluster>) =>
  t
    .pods()
    .map((p) => p.metadata.name)
    .sort();

describe("StatefulSet controller", () => {
  it("starts pods in order, each once the one before is Running and Ready", () => {
    const t = testCluster();
    t.create(
      statefulSet("db", 3, "mysql:8", {
        volumeClaimTemplates: [
          {
            metadata: { name: "data" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "2Gi" } } },
          },
        ],
      }),
    );
    expect(names(t)).toEqual(["db-0"]);
    const p0 = t.get("Pod", "db-0");
    expect(p0.metadata.labels).toMatchObject({
      app: "db",
      "statefulset.kubernetes.io/pod-name": "db-0",
      "apps.kubernetes.io/pod-index": "0",
    });
    const [rev] = t.list("ControllerRevision");
    expect(rev.metadata.name).toBe(p0.metadata.labels!["controller-revision-hash"]);
    expect(rev.metadata.name).toMatch(/^db-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rev.revision).toBe(1);
    expect((rev.data as RevisionData).spec.template.$patch).toBe("replace");
    expect(p0.spec).toMatchObject({ hostname: "db-0", subdomain: "db" });
    // the claim's volume, then the bound token volume ServiceAccount admission adds
    expect(p0.spec.volumes![0]).toEqual({ name: "data", persistentVolumeClaim: { claimName: "data-db-0" } });
    expect(p0.spec.volumes!.map((v) => v.name)).toEqual(["data", expect.stringMatching(/^kube-api-access-/)]);
    expect(t.get("PersistentVolumeClaim", "data-db-0").spec.resources!.requests!.storage).toBe("2Gi");

    t.advance(30_000);
    expect(names(t)).toEqual(["db-0"]); // not Ready yet: nothing more
    t.readyAll([p0]);
    expect(names(t)).toEqual(["db-0", "db-1"]);
    t.readyAll([t.get("Pod", "db-1")]);
    t.readyAll([t.get("Pod", "db-2")]);
    const s = t.get("StatefulSet", "db").status;
    expect(s).toEqual({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: rev.metadata.name,
      updateRevision: rev.metadata.name,
      collisionCount: 0,
      availableReplicas: 3,
    });
    expect(t.events("SuccessfulCreate")).toEqual([
      "create Claim data-db-0 Pod db-0 in StatefulSet db success",
      "create Pod db-0 in StatefulSet db successful",
      "create Claim data-db-1 Pod db-1 in StatefulSet db success",
      "create Pod db-1 in StatefulSet db successful",
      "create Claim data-db-2 Pod db-2 in StatefulSet db success",
      "create Pod db-2 in StatefulSet db successful",
    ]);
  });

  it("rolls from the highest ordinal, one pod at a time, waiting for each to be Ready", () => {
    const t = testCluster();
    t.create(statefulSet("db", 3));
    for (const n of [0, 1, 2]) t.readyAll([t.get("Pod", `db-${n}`)]);
    const [rev1] = t.list("ControllerRevision");
    t.edit("StatefulSet", "db", (s) => {
      s.spec.template.spec!.containers[0].image = "mysql:8.4";
    });
    const rev2 = t.list("ControllerRevision").find((r) => r.revision === 2)!;
    expect(rev2).toBeDefined();
    const order: string[] = [];
    for (let step = 0; step < 6; step++) {
      const fresh = t.pods().filter((p) => image(p) === "mysql:8.4" && p.status?.phase !== "Running");
      // never more than one pod replaced but not yet Ready
      expect(fresh.length).toBeLessThanOrEqual(1);
      expect(t.pods().length).toBeGreaterThanOrEqual(2);
      for (const p of fresh) {
        order.push(p.metadata.name!);
        t.readyAll([p]);
      }
    }
    expect(order).toEqual(["db-2", "db-1", "db-0"]);
    expect(t.pods().map(image)).toEqual(["mysql:8.4", "mysql:8.4", "mysql:8.4"]);
    const s = t.get("StatefulSet", "db").status;
    expect(s).toMatchObject({
      currentRevision: rev2.metadata.name,
      updateRevision: rev2.metadata.name,
      updatedReplicas: 3,
      currentReplicas: 3,
      readyReplicas: 3,
    });
    expect(t.events("SuccessfulDelete")).toEqual([
      "delete Pod db-2 in StatefulSet db successful",
      "delete Pod db-1 in StatefulSet db successful",
      "delete Pod db-0 in StatefulSet db successful",
    ]);

    // undo as kubectl does: the old revision's data applied back makes revision 1 the newest (3)
    t.edit("StatefulSet", "db", (s) => {
      const { $patch: _, ...template } = (rev1.data as RevisionData).spec.template;
      s.spec.template = template;
    });
    expect(t.get("ControllerRevision", rev1.metadata.name!).revision).toBe(3);
    expect(t.get("StatefulSet", "db").status!.updateRevision).toBe(rev1.metadata.name);
    expect(
      t
        .pods()
        .filter((p) => image(p) === "mysql:8")
        .map((p) => p.metadata.name),
    ).toEqual(["db-2"]);
  });

  it("scales down from the highest ordinal, and keeps the claims", () => {
    const t = testCluster();
    t.create(
      statefulSet("q", 3, "redis", {
        volumeClaimTemplates: [
          { metadata: { name: "d" }, spec: { resources: { requests: { storage: "1Gi" } } } },
        ],
      }),
    );
    for (const n of [0, 1, 2]) t.readyAll([t.get("Pod", `q-${n}`)]);
    t.edit("StatefulSet", "q", (s) => {
      s.spec.replicas = 1;
    });
    expect(names(t)).toEqual(["q-0"]);
    expect(t.events("SuccessfulDelete")).toEqual([
      "delete Pod q-2 in StatefulSet q successful",
      "delete Pod q-1 in StatefulSet q successful",
    ]);
    expect(t.list("PersistentVolumeClaim").map((c) => c.metadata.name)).toEqual(["d-q-0", "d-q-1", "d-q-2"]);
    expect(t.get("StatefulSet", "q").status).toMatchObject({ replicas: 1, readyReplicas: 1 });
  });

  it("creates all pods at once with podManagementPolicy Parallel, and replaces failed ones", () => {
    const t = testCluster();
    t.create(statefulSet("par", 3, "x", { podManagementPolicy: "Parallel" }));
    expect(names(t)).toEqual(["par-0", "par-1", "par-2"]);
    const p1 = t.get("Pod", "par-1");
    t.registry.update(
      R("Pod"),
      NS,
      "par-1",
      { ...p1, status: { ...p1.status, phase: "Failed" } },
      { force: true },
    );
    t.drain();
    expect(t.get("Pod", "par-1").metadata.uid).not.toBe(p1.metadata.uid);
    expect(t.events("RecreatingFailedPod")).toEqual([
      "StatefulSet default/par is recreating failed Pod par-1",
    ]);
  });

  it("leaves its pods to the garbage collector when deleted", () => {
    const t = testCluster();
    t.create(statefulSet("g", 2, "x", { podManagementPolicy: "Parallel" }));
    t.registry.delete(R("StatefulSet"), NS, "g");
    t.drain();
    expect(t.list("Pod")).toHaveLength(0);
    expect(t.list("ControllerRevision")).toHaveLength(0);
  });
});
