// A cluster for workload-controller tests: pinned clock, hand-drained queues and no nodes, so
// no scheduler or kubelet touches the pods; tests decide when a pod is Running and Ready.

import type { V1PersistentVolumeClaimSpec } from "@kubernetes/client-node";
import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import { controllerOf } from "../../../src/sim/core/meta.js";
import type {
  Container,
  ControllerRevision,
  DaemonSet,
  Deployment,
  Event,
  Pod,
  PodSpec,
  ReplicaSet,
  StatefulSet,
  Stored,
} from "../../../src/sim/core/objects.js";
import type { KObject } from "../../../src/sim/core/types.js";

export interface PersistentVolumeClaim extends KObject {
  spec: Stored<V1PersistentVolumeClaimSpec>;
}

/** The kinds these tests read, by name: `t.get("Pod", name)` is a Pod; other kinds are KObjects. */
interface Kinds {
  Pod: Pod;
  Deployment: Deployment;
  ReplicaSet: ReplicaSet;
  StatefulSet: StatefulSet;
  DaemonSet: DaemonSet;
  ControllerRevision: ControllerRevision;
  Event: Event;
  PersistentVolumeClaim: PersistentVolumeClaim;
}
export type KindOf<K extends string> = K extends keyof Kinds ? Kinds[K] : KObject;

export const NS = "default";

export function testCluster(nodes: { name: string; cpu: string; memory: string; pods: number }[] = []) {
  const clock = new ManualClock();
  const data = simData();
  // the tests' own images, published as a user's system's are (the registry has them)
  const own = ["agent:1", "agent:2", "pg:15", "pg:16", ...[1, 2, 3, 4, 5].map((v) => `app:${v}`)];
  const cluster = new EmbeddedCluster({
    ...data,
    publishedImages: [...data.publishedImages, ...own],
    clock,
    autoDrain: false,
    nodes,
  });
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
    get: <K extends string>(kind: K, name: string) => registry.get(R(kind), NS, name) as KindOf<K>,
    list: <K extends string>(kind: K) => registry.list(R(kind), NS) as KindOf<K>[],
    create(obj: KObject) {
      const o = registry.create(R(obj.kind), NS, obj);
      runtime.drain();
      return o;
    },
    /** Change an object as a user would (with generation bumps), then drain. */
    edit<K extends string>(kind: K, name: string, change: (o: KindOf<K>) => void) {
      const o = structuredClone(api.get(kind, name));
      change(o);
      const out = registry.update(R(kind), NS, name, o);
      runtime.drain();
      return out;
    },
    /** Pods that count: not terminating. */
    pods: (owner?: KObject) =>
      api
        .list("Pod")
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
      const cur = api.get("Pod", pod.metadata.name!);
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
      api
        .list("Event")
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
  spec: Partial<Deployment["spec"]> = {},
): Deployment {
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
  spec: Partial<StatefulSet["spec"]> = {},
): StatefulSet {
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

/** A status condition by type, of any kind (a Deployment's or a Pod's). */
export const cond = <C extends { type: string }>(o: { status?: { conditions?: C[] } }, type: string) =>
  (o.status?.conditions ?? []).find((c) => c.type === type);

/** The spec of a pod, or of a workload with a pod template: the fields `image` reads. */
interface ImageSpec {
  template?: { spec?: PodSpec };
  containers?: Container[];
}
/** The first container's image of a pod or a workload's template. */
export const image = (o: KObject) => {
  const spec = o.spec as ImageSpec | undefined;
  return (spec?.template?.spec ?? spec)?.containers?.[0]?.image;
};

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
export function rolledOut(d: Deployment): boolean {
  const s: NonNullable<Deployment["status"]> = d.status ?? {};
  return (
    (s.observedGeneration ?? 0) >= d.metadata.generation! &&
    (s.updatedReplicas ?? 0) === d.spec.replicas &&
    (s.replicas ?? 0) === (s.updatedReplicas ?? 0) &&
    (s.availableReplicas ?? 0) === (s.updatedReplicas ?? 0)
  );
}
