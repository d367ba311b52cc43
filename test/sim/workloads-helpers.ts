// A cluster for workload-controller tests: pinned clock, hand-drained queues and no nodes, so
// no scheduler or kubelet touches the pods; tests decide when a pod is Running and Ready.

import { simData } from "../../src/cli/sim-data.js";
import { ManualClock } from "../../src/sim/clock.js";
import { EmbeddedCluster } from "../../src/sim/cluster.js";
import { controllerOf, R } from "../../src/sim/controllers/context.js";
import type { Condition } from "../../src/sim/objects.js";
import type { KObject } from "../../src/sim/types.js";

/** Spec fields a test adds to or overrides in a workload's spec. */
type SpecFields = Record<string, unknown>;

export const NS = "default";

export function testCluster(nodes: { name: string; cpu: string; memory: string; pods: number }[] = []) {
  const clock = new ManualClock();
  const cluster = new EmbeddedCluster({ ...simData(), clock, autoDrain: false, nodes });
  const { registry, runtime, store } = cluster.ctx;
  runtime.drain();
  let ip = 0;

  const api = {
    cluster,
    clock,
    registry,
    drain: () => runtime.drain(),
    /** Advance cluster time (firing timed requeues) and drain. */
    advance(ms: number) {
      clock.advance(ms);
      runtime.drain();
    },
    get: (kind: string, name: string) => registry.get(R(kind), NS, name),
    list: (kind: string) => registry.list(R(kind), NS),
    create(obj: KObject) {
      const o = registry.create(R(obj.kind), NS, obj);
      runtime.drain();
      return o;
    },
    /** Change an object as a user would (with generation bumps), then drain. */
    edit(kind: string, name: string, change: (o: KObject) => void) {
      const o = structuredClone(registry.get(R(kind), NS, name));
      change(o);
      const out = registry.update(R(kind), NS, name, o);
      runtime.drain();
      return out;
    },
    /** Pods that count: not terminating. */
    pods: (owner?: KObject) =>
      registry
        .list(R("Pod"), NS)
        .filter(
          (p) => !p.metadata.deletionTimestamp && (!owner || owner.metadata.uid === controllerOf(p)?.uid),
        ),
    podsOfDeployment(name: string) {
      const rss = new Set(
        api
          .list("ReplicaSet")
          .filter((rs) => controllerOf(rs)?.name === name)
          .map((rs) => rs.metadata.uid),
      );
      return api.pods().filter((p) => rss.has(controllerOf(p)?.uid ?? ""));
    },
    /** The kubelet's part, by hand: the pod runs and passes its readiness probe. */
    markReady(pod: KObject, ready = true) {
      const now = registry.now();
      const cur = registry.get(R("Pod"), NS, pod.metadata.name!);
      const status = {
        ...cur.status,
        phase: "Running",
        podIP: cur.status?.podIP ?? `10.42.0.${(ip++ % 250) + 2}`,
        conditions: [
          { type: "Ready", status: ready ? "True" : "False", lastProbeTime: null, lastTransitionTime: now },
        ],
      };
      registry.update(R("Pod"), NS, pod.metadata.name!, { ...cur, status }, { force: true });
    },
    readyAll(pods: KObject[]) {
      for (const p of pods) api.markReady(p);
      runtime.drain();
    },
    events: (reason?: string) =>
      registry
        .list(R("Event"), NS)
        .filter((e) => !reason || e.reason === reason)
        .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
        .map((e) => e.message as string),
    store,
  };
  return api;
}

export function deployment(
  name: string,
  replicas: number,
  image = "nginx:1.25",
  spec: SpecFields = {},
): KObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image }] } },
      ...spec,
    },
  };
}

export function statefulSet(
  name: string,
  replicas: number,
  image = "mysql:8",
  spec: SpecFields = {},
): KObject {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image }] } },
      ...spec,
    },
  };
}

export const cond = (o: KObject, type: string) =>
  (o.status?.conditions ?? []).find((c: Condition) => c.type === type);
export const image = (o: KObject) => (o.spec?.template?.spec ?? o.spec)?.containers?.[0]?.image;

type TestCluster = ReturnType<typeof testCluster>;

/** A Deployment's ReplicaSets, oldest revision first. */
export const rsOf = (t: TestCluster, name: string) =>
  t
    .list("ReplicaSet")
    .filter((rs) => controllerOf(rs)?.name === name)
    .sort(
      (a, b) =>
        Number(a.metadata.annotations?.["deployment.kubernetes.io/revision"]) -
        Number(b.metadata.annotations?.["deployment.kubernetes.io/revision"]),
    );

/** What `kubectl rollout status` checks before it says "successfully rolled out". */
export function rolledOut(d: KObject): boolean {
  const s = d.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= d.metadata.generation! &&
    (s.updatedReplicas ?? 0) === d.spec.replicas &&
    (s.replicas ?? 0) === (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) === (s.updatedReplicas ?? 0)
  );
}
