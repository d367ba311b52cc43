// Deployment operations besides rolling: revision history, restart, scaling (also in
// mid-rollout), Recreate, pause, minReadySeconds, deletion.
import { describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { cond, deployment, image, NS, rolledOut, rsOf, testCluster } from "./workloads-helpers.js";

describe("Deployment controller: history, scaling, strategies", () => {
  it("keeps revisionHistoryLimit old ReplicaSets, copies change-cause, and restarts on restartedAt", () => {
    const t = testCluster();
    t.create(deployment("hist", 1, "app:1", { revisionHistoryLimit: 2 }));
    for (let v = 2; v <= 5; v++) {
      t.readyAll(t.podsOfDeployment("hist").filter((p) => p.status?.phase !== "Running"));
      t.edit("Deployment", "hist", (d) => {
        d.metadata.annotations = { ...d.metadata.annotations, "kubernetes.io/change-cause": `v${v}` };
        d.spec.template.spec!.containers[0].image = `app:${v}`;
      });
    }
    t.readyAll(t.podsOfDeployment("hist").filter((p) => p.status?.phase !== "Running"));
    const left = rsOf(t, "hist");
    expect(left.map((rs) => rs.metadata.annotations?.["deployment.kubernetes.io/revision"])).toEqual([
      "3",
      "4",
      "5",
    ]);
    expect(left.map((rs) => image(rs))).toEqual(["app:3", "app:4", "app:5"]);
    expect(left[2].metadata.annotations?.["kubernetes.io/change-cause"]).toBe("v5");

    t.edit("Deployment", "hist", (d) => {
      d.spec.template.metadata!.annotations = { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z" };
    });
    const after = rsOf(t, "hist");
    expect(after.at(-1)!.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("6");
    expect(t.pods(after.at(-1)!)[0].metadata.annotations).toEqual({
      "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z",
    });
  });

  it("scales the current ReplicaSet up and down", () => {
    const t = testCluster();
    const d0 = t.create(deployment("s", 1));
    t.readyAll(t.podsOfDeployment("s"));
    t.edit("Deployment", "s", (d) => {
      d.spec.replicas = 3;
    });
    const [rs] = rsOf(t, "s");
    expect(rsOf(t, "s")).toHaveLength(1);
    expect(rs.spec.replicas).toBe(3);
    expect(rs.metadata.annotations?.["deployment.kubernetes.io/desired-replicas"]).toBe("3");
    t.readyAll(t.podsOfDeployment("s"));
    expect(rolledOut(t.get("Deployment", "s"))).toBe(true);
    expect(t.get("Deployment", "s").status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: d0.metadata.generation! + 1,
    });

    // the newest pod goes first when scaling down
    const newest = t.podsOfDeployment("s").sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    t.markReady(newest[1], false);
    t.edit("Deployment", "s", (d) => {
      d.spec.replicas = 2;
    });
    expect(t.podsOfDeployment("s").map((p) => p.metadata.name)).not.toContain(newest[1].metadata.name);
    expect(t.podsOfDeployment("s")).toHaveLength(2);
    expect(t.events("ScalingReplicaSet").slice(-2)).toEqual([
      `Scaled up replica set ${rs.metadata.name} from 1 to 3`,
      `Scaled down replica set ${rs.metadata.name} from 3 to 2`,
    ]);
    expect(t.events("SuccessfulDelete")).toEqual([`Deleted pod: ${newest[1].metadata.name}`]);
  });

  it("spreads a scale-up over both ReplicaSets in mid-rollout, in proportion (the kube docs example)", () => {
    const t = testCluster();
    const strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    t.create(deployment("big", 10, "nginx:1.25", { strategy }));
    t.readyAll(t.podsOfDeployment("big"));
    t.edit("Deployment", "big", (d) => {
      d.spec.template.spec!.containers[0].image = "nginx:does-not-exist";
    });
    // stuck: 13 pods at most, 8 available at least, the 5 new ones never Ready
    let [old, neu] = rsOf(t, "big");
    expect([old.spec.replicas, neu.spec.replicas]).toEqual([8, 5]);
    t.edit("Deployment", "big", (d) => {
      d.spec.replicas = 15;
    });
    [old, neu] = rsOf(t, "big");
    expect([old.spec.replicas, neu.spec.replicas]).toEqual([11, 7]);
    expect(neu.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/desired-replicas": "15",
      "deployment.kubernetes.io/max-replicas": "18",
    });
    expect(t.events("ScalingReplicaSet").slice(-2)).toEqual([
      `Scaled up replica set ${old.metadata.name} from 8 to 11`,
      `Scaled up replica set ${neu.metadata.name} from 5 to 7`,
    ]);
  });

  it("Recreate scales the old ReplicaSet to 0 and starts the new one only when its pods are gone", () => {
    const t = testCluster();
    t.create(deployment("db", 2, "pg:15", { strategy: { type: "Recreate" } }));
    // scheduled pods terminate gracefully (until the kubelet ends them)
    for (const p of t.podsOfDeployment("db")) {
      const cur = t.get("Pod", p.metadata.name!);
      t.registry.update(
        R("Pod"),
        NS,
        p.metadata.name!,
        { ...cur, spec: { ...cur.spec, nodeName: "n1" } },
        { force: true },
      );
    }
    t.readyAll(t.podsOfDeployment("db"));
    const [oldRS] = rsOf(t, "db");
    t.edit("Deployment", "db", (d) => {
      d.spec.template.spec!.containers[0].image = "pg:16";
    });
    expect(t.get("ReplicaSet", oldRS.metadata.name!).spec.replicas).toBe(0);
    expect(rsOf(t, "db")).toHaveLength(1); // no new ReplicaSet while old pods terminate
    const terminating = t.list("Pod").filter((p) => p.metadata.deletionTimestamp);
    expect(terminating).toHaveLength(2);
    t.registry.purge(R("Pod"), NS, terminating[0].metadata.name!);
    t.drain();
    expect(rsOf(t, "db")).toHaveLength(1);
    t.registry.purge(R("Pod"), NS, terminating[1].metadata.name!);
    t.drain();
    const [, newRS] = rsOf(t, "db");
    expect(newRS.spec.replicas).toBe(2);
    expect(t.pods(newRS).map(image)).toEqual(["pg:16", "pg:16"]);
    expect(t.events("ScalingReplicaSet").slice(-2)).toEqual([
      `Scaled down replica set ${oldRS.metadata.name} from 2 to 0`,
      `Scaled up replica set ${newRS.metadata.name} from 0 to 2`,
    ]);
  });

  it("does not roll while paused, and rolls on resume", () => {
    const t = testCluster();
    t.create(deployment("p", 1));
    t.readyAll(t.podsOfDeployment("p"));
    t.edit("Deployment", "p", (d) => {
      d.spec.paused = true;
      d.spec.template.spec!.containers[0].image = "nginx:2";
    });
    expect(rsOf(t, "p")).toHaveLength(1);
    expect(cond(t.get("Deployment", "p"), "Progressing")).toMatchObject({
      status: "Unknown",
      reason: "DeploymentPaused",
    });
    t.edit("Deployment", "p", (d) => {
      d.spec.paused = false;
    });
    expect(rsOf(t, "p")).toHaveLength(2);
  });

  it("counts pods available only after minReadySeconds", () => {
    const t = testCluster();
    t.create(deployment("m", 1, "nginx", { minReadySeconds: 10 }));
    t.readyAll(t.podsOfDeployment("m"));
    expect(t.get("Deployment", "m").status).toMatchObject({ readyReplicas: 1, unavailableReplicas: 1 });
    t.advance(11_000);
    expect(t.get("Deployment", "m").status).toMatchObject({ readyReplicas: 1, availableReplicas: 1 });
    expect(rolledOut(t.get("Deployment", "m"))).toBe(true);
  });

  it("leaves ReplicaSets and pods to the garbage collector when deleted", () => {
    const t = testCluster();
    t.create(deployment("gone", 3));
    expect(t.podsOfDeployment("gone")).toHaveLength(3);
    t.registry.delete(R("Deployment"), NS, "gone");
    t.drain();
    expect(t.list("ReplicaSet")).toHaveLength(0);
    expect(t.list("Pod")).toHaveLength(0);
  });
});
