// A pinned-clock cluster for the Chaos Mesh tests: real kubelet, Deployments and Services, queues
// drained by hand while cluster time moves in small steps.

import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import type { ChaosObject, ChaosStatus } from "../../../src/sim/chaos/spec.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import { controllerOf } from "../../../src/sim/core/meta.js";
import type {
  Chaos,
  Container,
  Deployment,
  Event,
  Pod,
  Probe,
  ResourceRequirements,
} from "../../../src/sim/core/objects.js";
import type { KObject } from "../../../src/sim/core/types.js";

export const NS = "shop";

export interface AppOptions {
  replicas?: number;
  /** false: no readiness probe. */
  probe?: Probe | false;
  sidecar?: boolean;
  resources?: ResourceRequirements;
  volume?: boolean;
}

/** A Deployment shaped like the systems' services: app container (+ sidecar-busybox). */
export function app(name: string, opts: AppOptions = {}): Deployment {
  const main: Container = {
    name,
    image: "nginx:1.25",
    ports: [{ containerPort: 80 }],
    resources: opts.resources ?? {
      requests: { cpu: "100m", memory: "300Mi" },
      limits: { cpu: "500m", memory: "2000Mi" },
    },
  };
  if (opts.probe !== false)
    main.readinessProbe = opts.probe ?? { httpGet: { path: "/", port: 80 }, periodSeconds: 5 };
  if (opts.volume) main.volumeMounts = [{ name: "mysql-log", mountPath: "/var/log/mysql" }];
  const containers: Container[] = [main];
  if (opts.sidecar)
    containers.push({
      name: "sidecar-busybox",
      image: "busybox:1.35",
      command: ["sh", "-c", "sleep infinity"],
      resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { cpu: "50m", memory: "64Mi" } },
    });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers, ...(opts.volume ? { volumes: [{ name: "mysql-log", emptyDir: {} }] } : {}) },
      },
    },
  };
}

export function chaos(kind: string, name: string, spec: Record<string, unknown>, target = "web"): Chaos {
  return {
    apiVersion: "chaos-mesh.org/v1alpha1",
    kind,
    metadata: { name, namespace: NS },
    spec: { mode: "one", selector: { namespaces: [NS], labelSelectors: { app: target } }, ...spec },
  };
}

export const isReady = (p: Pod | undefined) =>
  p?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

export function chaosCluster(seed: number | string = 42) {
  const clock = new ManualClock();
  const cluster = new EmbeddedCluster({ ...simData(), clock, autoDrain: false, seed });
  const { registry, runtime, faults } = cluster.ctx;
  runtime.drain();
  registry.create(R("Namespace"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  runtime.drain();

  const t = {
    cluster,
    clock,
    ctx: cluster.ctx,
    faults,
    /** Move cluster time in small steps, letting every controller and the kubelet work. */
    run(ms: number, step = 250) {
      for (let done = 0; done < ms; done += step) {
        clock.advance(Math.min(step, ms - done));
        runtime.drain();
      }
    },
    /** Run until `check` holds (or fail after `maxMs` of cluster time). */
    until<T>(what: string, check: () => T | undefined | false, maxMs = 120_000): T {
      for (let waited = 0; ; waited += 250) {
        const v = check();
        if (v) return v;
        if (waited > maxMs) throw new Error(`timed out waiting for ${what}`);
        t.run(250);
      }
    },
    create(obj: KObject) {
      const o = registry.create(R(obj.kind), NS, obj);
      runtime.drain();
      return o;
    },
    get: (kind: string, name: string) => registry.tryGet(R(kind), NS, name),
    pods: (name = "web") =>
      (registry.list(R("Pod"), NS) as Pod[]).filter(
        (p) => p.metadata.labels?.app === name && !p.metadata.deletionTimestamp && controllerOf(p),
      ),
    pod: (name: string) => registry.tryGet(R("Pod"), NS, name) as Pod | undefined,
    /** Deploy and wait until every pod is Ready. */
    deploy(d: Deployment) {
      t.create(d);
      const n = d.spec.replicas;
      return t.until(`${d.metadata.name} ready`, () => {
        const ps = t.pods(d.metadata.name);
        return ps.length === n && ps.every(isReady) && ps;
      });
    },
    /** Change a stored object; the callback may say its kind (`(d: Deployment) => ...`). */
    edit<T extends KObject = KObject>(kind: string, name: string, change: (o: T) => void) {
      const o = structuredClone(registry.get(R(kind), NS, name)) as T;
      change(o);
      const out = registry.update(R(kind), NS, name, o);
      runtime.drain();
      return out;
    },
    remove(kind: string, name: string) {
      const out = registry.delete(R(kind), NS, name);
      runtime.drain();
      return out;
    },
    /** Events about one object, oldest first, as "Reason: message". */
    eventsOf(name: string, kind?: string) {
      return (registry.list(R("Event"), NS) as Event[])
        .filter((e) => e.involvedObject.name === name && (!kind || e.involvedObject.kind === kind))
        .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
        .map((e) => `${e.reason}: ${e.message}`);
    },
    statusOf(kind: string, name: string): ChaosStatus {
      // every chaos object the tests read has been reconciled, so it has a status
      return (registry.get(R(kind), NS, name) as ChaosObject).status!;
    },
    /** The record ids of an experiment. */
    recordIds(kind: string, name: string): string[] {
      return (t.statusOf(kind, name).experiment.containerRecords ?? []).map((r) => r.id);
    },
    cond(kind: string, name: string) {
      return Object.fromEntries((t.statusOf(kind, name).conditions ?? []).map((c) => [c.type, c.status]));
    },
  };
  return t;
}

export type ChaosTest = ReturnType<typeof chaosCluster>;

export const podOfRecord = (id: string) => id.split("/")[1];

export const ctrStatus = (p: Pod | undefined, name: string) =>
  (p?.status?.containerStatuses ?? []).find((s) => s.name === name);
