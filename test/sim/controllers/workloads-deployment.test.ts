// Deployment and ReplicaSet controllers, driven step by step: creation, rolling updates within
// their surge/unavailability bounds, a rollout that hangs, undo.
import { describe, expect, it } from "vitest";
import { R } from "../../../src/sim/api/resources.js";
import { controllerOf } from "../../../src/sim/core/meta.js";
import type { PodTemplate } from "../../../src/sim/core/objects.js";
import { cond, deployment, image, NS, rolledOut, rsOf, testCluster } from "./workloads-helpers.js";

/** A pod template as `kubectl rollout undo` sends it back: labels kept, creationTimestamp null. */
interface UndoTemplate {
  metadata: { labels: Record<string, string>; creationTimestamp?: string | null };
  spec?: PodTemplate["spec"];
}

describe("Deployment controller: rollouts", () => {
  it("creates a ReplicaSet named after the pod-template-hash, and its pods", () => {
    const t = testCluster();
    t.create(deployment("web", 2));
    const [rs] = rsOf(t, "web");
    const hash = rs.metadata.labels!["pod-template-hash"];
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.spec.selector.matchLabels).toEqual({ app: "web", "pod-template-hash": hash });
    expect(rs.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "1",
      "deployment.kubernetes.io/desired-replicas": "2",
      "deployment.kubernetes.io/max-replicas": "3",
    });
    expect(controllerOf(rs)).toMatchObject({ kind: "Deployment", name: "web", blockOwnerDeletion: true });
    const pods = t.pods(rs);
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(p.metadata.labels).toEqual({ app: "web", "pod-template-hash": hash });
      expect(controllerOf(p)).toMatchObject({
        kind: "ReplicaSet",
        name: rs.metadata.name,
        controller: true,
        blockOwnerDeletion: true,
      });
    }
    expect(t.events("ScalingReplicaSet")).toEqual([`Scaled up replica set ${rs.metadata.name} from 0 to 2`]);
    expect(t.events("SuccessfulCreate").sort()).toEqual(
      pods.map((p) => `Created pod: ${p.metadata.name}`).sort(),
    );

    let d = t.get("Deployment", "web");
    expect(d.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("1");
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      unavailableReplicas: 2,
    });
    expect(cond(d, "Available")).toMatchObject({ status: "False", reason: "MinimumReplicasUnavailable" });
    expect(cond(d, "Progressing")).toMatchObject({ status: "True", reason: "ReplicaSetUpdated" });
    expect(rolledOut(d)).toBe(false);

    t.readyAll(pods);
    d = t.get("Deployment", "web");
    expect(d.status).toMatchObject({
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
    expect(d.status!.unavailableReplicas).toBeUndefined();
    expect(cond(d, "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
      message: "Deployment has minimum availability.",
    });
    expect(cond(d, "Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetAvailable",
      message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.`,
    });
    expect(rolledOut(d)).toBe(true);
    expect(t.get("ReplicaSet", rs.metadata.name!).status).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 1,
    });
  });

  it("rolls 1 replica by adding the new pod and keeping the old one until the new one is Ready", () => {
    const t = testCluster();
    t.create(deployment("api", 1));
    t.readyAll(t.podsOfDeployment("api"));
    const [oldRS] = rsOf(t, "api");
    const [oldPod] = t.pods(oldRS);

    t.edit("Deployment", "api", (d) => {
      d.spec.template.spec!.containers[0].image = "nginx:1.26";
    });
    const [, newRS] = rsOf(t, "api");
    expect(newRS.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
    expect(newRS.spec.replicas).toBe(1);
    expect(t.get("ReplicaSet", oldRS.metadata.name!).spec.replicas).toBe(1);
    expect(t.podsOfDeployment("api")).toHaveLength(2);
    let d = t.get("Deployment", "api");
    expect(d.metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
    expect(d.status).toMatchObject({
      observedGeneration: 2,
      replicas: 2,
      updatedReplicas: 1,
      availableReplicas: 1,
    });
    expect(rolledOut(d)).toBe(false);

    // still not ready after a while: the old pod keeps serving
    t.advance(60_000);
    expect(t.registry.tryGet(R("Pod"), NS, oldPod.metadata.name!)).toBeDefined();

    t.readyAll(t.pods(newRS));
    expect(t.get("ReplicaSet", oldRS.metadata.name!).spec.replicas).toBe(0);
    expect(t.registry.tryGet(R("Pod"), NS, oldPod.metadata.name!)).toBeUndefined();
    d = t.get("Deployment", "api");
    expect(rolledOut(d)).toBe(true);
    expect(image(t.podsOfDeployment("api")[0])).toBe("nginx:1.26");
    expect(t.events("ScalingReplicaSet")).toEqual([
      `Scaled up replica set ${oldRS.metadata.name} from 0 to 1`,
      `Scaled up replica set ${newRS.metadata.name} from 0 to 1`,
      `Scaled down replica set ${oldRS.metadata.name} from 1 to 0`,
    ]);
  });

  it("rolls 4 replicas within maxSurge 25% (up) and maxUnavailable 25% (down) at every step", () => {
    const t = testCluster();
    t.create(deployment("cart", 4));
    t.readyAll(t.podsOfDeployment("cart"));
    t.edit("Deployment", "cart", (d) => {
      d.spec.template.spec!.containers[0].image = "nginx:1.26";
    });
    let steps = 0;
    for (; steps < 20 && !rolledOut(t.get("Deployment", "cart")); steps++) {
      const pods = t.podsOfDeployment("cart");
      const rsTotal = rsOf(t, "cart").reduce((n, rs) => n + rs.spec.replicas!, 0);
      expect(rsTotal).toBeLessThanOrEqual(5); // 4 + ceil(25% of 4)
      expect(pods.length).toBeLessThanOrEqual(5);
      expect(pods.filter((p) => p.status?.conditions?.[0]?.status === "True").length).toBeGreaterThanOrEqual(
        3,
      ); // 4 - floor(25% of 4)
      // one new pod becomes Ready per step
      const waiting = pods.filter((p) => image(p) === "nginx:1.26" && p.status?.phase !== "Running");
      if (waiting.length) t.readyAll([waiting[0]]);
    }
    expect(rolledOut(t.get("Deployment", "cart"))).toBe(true);
    expect(steps).toBeGreaterThanOrEqual(4);
    expect(t.podsOfDeployment("cart").map(image)).toEqual(Array(4).fill("nginx:1.26"));
    const [oldRS, newRS] = rsOf(t, "cart");
    expect(oldRS.spec.replicas).toBe(0);
    expect(newRS.status).toMatchObject({ replicas: 4, availableReplicas: 4 });
  });

  it("hangs a rollout whose pods never become Ready, keeps the old pod, and reports the deadline", () => {
    const t = testCluster();
    t.create(deployment("pay", 1));
    t.readyAll(t.podsOfDeployment("pay"));
    const [oldRS] = rsOf(t, "pay");
    t.edit("Deployment", "pay", (d) => {
      d.spec.template.spec!.containers[0].resources = {
        requests: { cpu: "1m", memory: "100Mi" },
        limits: { cpu: "2m", memory: "200Mi" },
      };
    });
    const [, badRS] = rsOf(t, "pay");
    const [badPod] = t.pods(badRS);
    t.markReady(badPod, false); // Running, never Ready
    t.drain();
    t.advance(300_000);
    let d = t.get("Deployment", "pay");
    expect(cond(d, "Progressing")).toMatchObject({ status: "True", reason: "ReplicaSetUpdated" });
    expect(t.pods(oldRS)).toHaveLength(1);
    expect(d.status).toMatchObject({
      replicas: 2,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      unavailableReplicas: 1,
    });
    expect(cond(d, "Available")).toMatchObject({ status: "True" });

    t.advance(302_000); // past progressDeadlineSeconds (600) since the last progress
    d = t.get("Deployment", "pay");
    expect(cond(d, "Progressing")).toMatchObject({
      status: "False",
      reason: "ProgressDeadlineExceeded",
      message: `ReplicaSet "${badRS.metadata.name}" has timed out progressing.`,
    });
    expect(t.pods(oldRS)).toHaveLength(1);
    expect(t.get("ReplicaSet", oldRS.metadata.name!).spec.replicas).toBe(1);
    // deleting the bad pod only brings back another from the same template
    t.registry.delete(R("Pod"), NS, badPod.metadata.name!);
    t.drain();
    expect(t.pods(badRS)).toHaveLength(1);
    expect(t.pods(badRS)[0].metadata.name).not.toBe(badPod.metadata.name);
  });

  it("undo (the old template patched back) re-uses the old ReplicaSet with the next revision", () => {
    const t = testCluster();
    t.create(deployment("cat", 2));
    t.readyAll(t.podsOfDeployment("cat"));
    const original = structuredClone(t.get("Deployment", "cat").spec.template);
    t.edit("Deployment", "cat", (d) => {
      d.spec.template.spec!.containers[0].image = "nginx:broken";
    });
    const [rs1, rs2] = rsOf(t, "cat");
    // as kubectl rollout undo does: the old ReplicaSet's template without its hash label
    const back = structuredClone(rs1.spec.template) as UndoTemplate;
    delete back.metadata.labels["pod-template-hash"];
    back.metadata.creationTimestamp = null;
    expect({ ...back, metadata: { labels: back.metadata.labels } }).toEqual(original);
    t.edit("Deployment", "cat", (d) => {
      d.spec.template = back as PodTemplate;
    });
    const all = rsOf(t, "cat");
    expect(all.map((rs) => rs.metadata.name)).toEqual([rs2.metadata.name, rs1.metadata.name]);
    const reused = t.get("ReplicaSet", rs1.metadata.name!);
    expect(reused.metadata.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "3",
      "deployment.kubernetes.io/revision-history": "1",
    });
    expect(t.get("Deployment", "cat").metadata.annotations?.["deployment.kubernetes.io/revision"]).toBe("3");
    expect(t.get("ReplicaSet", rs2.metadata.name!).spec.replicas).toBe(0);
    expect(reused.spec.replicas).toBe(2);
    expect(t.podsOfDeployment("cat").map(image)).toEqual(["nginx:1.25", "nginx:1.25"]);
  });
});
