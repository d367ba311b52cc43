// A lived-in namespace: the deployed state of a cluster that has run for days, as if restored
// from one. Once every Deployment and StatefulSet of a namespace the cluster was told about
// (a ConfigMap named after it in a registry namespace) first reports all its replicas available, its objects are dated back as a long-running
// cluster would show them, seeded and the same for every case of a seed:
// - the namespace and its objects were created days ago; each Deployment's pods hours ago, some
//   Deployments' more recently than others;
// - each Deployment has a short history of benign earlier rollouts that `kubectl rollout history`
//   lists: a previous image tag (one the registry has), debug logging switched on and off again
//   (an env var the application does not read). None touches what a fault changes;
// - the events of the deploy are gone: the API server keeps events for an hour (--event-ttl 1h),
//   so a quiet namespace that has run for days has none.
// All of it is objects in the store (and the kubelet's memory of its pods), so a snapshot of the
// namespace captures it; no clock runs the days.

import type { Rng } from "../../util/rng.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { HASH_LABEL, REVISION } from "../controllers/deployment-util.js";
import { computeHash } from "../controllers/workload-util.js";
import { stamp } from "../core/clock.js";
import { keyOf, ownerRef } from "../core/meta.js";
import type { Deployment, KObject } from "../core/objects.js";
import { moveStamp } from "../core/shown-times.js";
import type { Kubelet } from "./kubelet.js";

export interface LivedInOptions {
  /** The namespaces to make lived-in: those named by a ConfigMap of this namespace. */
  registry: string;
}

const QUEUE = "lived-in";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** What a deploy creates besides Deployments and what they own, all dated back to the namespace's start. */
const DEPLOYED = [
  "Service",
  "Endpoints",
  "EndpointSlice",
  "ConfigMap",
  "Secret",
  "ServiceAccount",
  "StatefulSet",
  "PersistentVolumeClaim",
  "NetworkPolicy",
  "Role",
  "RoleBinding",
] as const;
/** The fields of metav1.Time a long-running object carries (status and metadata alike). */
const TIME_FIELDS = new Set([
  "creationTimestamp",
  "lastTransitionTime",
  "lastUpdateTime",
  "lastProbeTime",
  "startTime",
  "startedAt",
  "finishedAt",
]);

/** Every metav1.Time field of `obj` (managedFields' `time` too), `ms` earlier. */
export function dateBack<T>(obj: T, ms: number): T {
  const walk = (v: unknown, key?: string, inManaged = false): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined, inManaged || key === "managedFields"));
    if (v && typeof v === "object")
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, walk(x, k, inManaged || key === "managedFields")]),
      );
    if (typeof v === "string" && key && (TIME_FIELDS.has(key) || (inManaged && key === "time")))
      return moveStamp(v, -ms);
    return v;
  };
  return walk(obj) as T;
}

/** An earlier tag of the same image, by one minor or patch step (`3.9-slim` -> `3.8-slim`). */
export function earlierTag(image: string): string | undefined {
  const m = /^(.*:v?\d+(?:\.\d+)*?\.)(\d+)(\D.*)?$/.exec(image);
  if (!m || Number(m[2]) < 1) return undefined;
  return `${m[1]}${Number(m[2]) - 1}${m[3] ?? ""}`;
}

const ready = (o: KObject & { spec?: { replicas?: number }; status?: Record<string, number> }) =>
  (o.metadata.generation ?? 0) <= (o.status?.observedGeneration ?? 0) &&
  (o.status?.availableReplicas ?? o.status?.readyReplicas ?? 0) >= (o.spec?.replicas ?? 1) &&
  (o.status?.updatedReplicas ?? o.spec?.replicas ?? 1) >= (o.spec?.replicas ?? 1);

export function installLivedIn(ctx: SimContext, kubelet: Kubelet, opts: LivedInOptions): void {
  const done = new Set<string>();
  const wanted = (ns: string | undefined) => {
    if (!ns) return false;
    const o = ctx.store.get(R("Namespace"), undefined, ns);
    return !!o && !!ctx.store.get(R("ConfigMap"), opts.registry, ns) && !done.has(o.metadata.uid!);
  };
  ctx.runtime.register(QUEUE, (ns) => {
    if (!wanted(ns)) return;
    const workloads = [...ctx.store.list(R("Deployment"), ns), ...ctx.store.list(R("StatefulSet"), ns)];
    if (!workloads.length || !workloads.every((w) => ready(w as Parameters<typeof ready>[0]))) return;
    done.add(ctx.store.get(R("Namespace"), undefined, ns)!.metadata.uid!);
    new Restore(ctx, kubelet, ns).run();
  });
  ctx.store.subscribe((e) => {
    const kind = e.rt.kind;
    if (kind === "Namespace") ctx.runtime.enqueue(QUEUE, e.object.metadata.name!);
    else if (kind === "ConfigMap" && e.object.metadata.namespace === opts.registry)
      ctx.runtime.enqueue(QUEUE, e.object.metadata.name!);
    else if ((kind === "Deployment" || kind === "StatefulSet") && wanted(e.object.metadata.namespace))
      ctx.runtime.enqueue(QUEUE, e.object.metadata.namespace!);
  });
}

class Restore {
  private readonly rng: Rng;
  private readonly now: number;
  /** How long ago the namespace was created. */
  private readonly age: number;

  constructor(
    private readonly ctx: SimContext,
    private readonly kubelet: Kubelet,
    private readonly ns: string,
  ) {
    this.rng = ctx.stream(`lived-in/${ns}`);
    this.now = ctx.clock.now();
    this.age = 3 * DAY + this.rng.int(9 * DAY);
  }

  run(): void {
    const { store } = this.ctx;
    for (const kind of DEPLOYED)
      for (const o of store.list(R(kind), this.ns)) store.put(R(kind), this.creationBack(o, this.age));
    const ns = store.get(R("Namespace"), undefined, this.ns)!;
    store.put(R("Namespace"), this.creationBack(ns, this.age + HOUR));
    for (const d of store.list(R("Deployment"), this.ns) as Deployment[]) this.deployment(d);
    for (const e of store.list(R("Event"), this.ns)) store.remove(R("Event"), this.ns, e.metadata.name!);
  }

  /** The object created `ms` earlier (its other times stay). */
  private creationBack<T extends KObject>(o: T, ms: number): T {
    return {
      ...o,
      metadata: { ...o.metadata, creationTimestamp: moveStamp(o.metadata.creationTimestamp ?? "", -ms) },
    };
  }

  private deployment(d: Deployment): void {
    const { store } = this.ctx;
    // when its pods were rolled out last: hours ago, at least an hour after the namespace
    const podsAge = HOUR + this.rng.int(Math.min(72 * HOUR, this.age - 2 * HOUR));
    const rsList = store
      .list(R("ReplicaSet"), this.ns)
      .filter((rs) => rs.metadata.ownerReferences?.some((r) => r.uid === d.metadata.uid));
    for (const rs of rsList) store.put(R("ReplicaSet"), dateBack(rs, podsAge));
    for (const p of store.list(R("Pod"), this.ns))
      if (rsList.some((rs) => p.metadata.ownerReferences?.some((r) => r.uid === rs.metadata.uid))) {
        store.put(R("Pod"), dateBack(p, podsAge));
        this.kubelet.dateBack(keyOf(p), podsAge);
      }
    const earlier = this.history(d, podsAge);
    const revision = earlier + 1;
    for (const rs of rsList) {
      const cur = store.get(R("ReplicaSet"), this.ns, rs.metadata.name!)!;
      store.put(R("ReplicaSet"), {
        ...cur,
        metadata: {
          ...cur.metadata,
          annotations: { ...cur.metadata.annotations, [REVISION]: String(revision) },
        },
      });
    }
    const live = this.creationBack(
      dateBack(store.get(R("Deployment"), this.ns, d.metadata.name!) as Deployment, podsAge),
      this.age - podsAge,
    );
    const generation = (live.metadata.generation ?? 1) + earlier;
    store.put(R("Deployment"), {
      ...live,
      metadata: {
        ...live.metadata,
        generation,
        annotations: { ...live.metadata.annotations, [REVISION]: String(revision) },
      },
      status: { ...live.status, observedGeneration: generation },
    });
  }

  /** Earlier ReplicaSets, scaled to 0, oldest first; returns how many. */
  private history(d: Deployment, podsAge: number): number {
    const tpl = d.spec?.template;
    const main = tpl?.spec?.containers?.[0];
    if (!tpl || !main) return 0;
    const older = earlierTag(main.image ?? "");
    const olderOk = older && this.kubelet.images.lookup(older).availability === "present";
    const debug = main.env?.some((e) => e.name === "LOG_LEVEL")
      ? undefined
      : { name: "LOG_LEVEL", value: "debug" };
    // each revision differs from the next: an older image, then debug logging on (and off again now)
    const variants: ((t: typeof tpl) => void)[] = [];
    if (olderOk)
      variants.push((t) => {
        t.spec!.containers[0].image = older;
      });
    if (debug && (!olderOk || this.rng.int(2) === 0))
      variants.push((t) => {
        t.spec!.containers[0].env = [...(t.spec!.containers[0].env ?? []), debug];
      });
    const created = this.now - this.age + 5 * 60_000;
    const last = this.now - podsAge;
    variants.forEach((change, i) => {
      const t = structuredClone(tpl);
      change(t);
      const hash = computeHash(t);
      t.metadata = { ...(t.metadata ?? {}), labels: { ...(t.metadata?.labels ?? {}), [HASH_LABEL]: hash } };
      const at = created + Math.floor(((last - created) * i) / variants.length) + this.rng.int(HOUR);
      const sel = d.spec?.selector ?? {};
      const rs = this.ctx.registry.create(R("ReplicaSet"), this.ns, {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name: `${d.metadata.name}-${hash}`,
          labels: { ...t.metadata.labels },
          annotations: {
            [REVISION]: String(i + 1),
            "deployment.kubernetes.io/desired-replicas": String(d.spec?.replicas ?? 1),
            "deployment.kubernetes.io/max-replicas": String((d.spec?.replicas ?? 1) + 1),
          },
          ownerReferences: [ownerRef(d)],
        },
        spec: {
          replicas: 0,
          selector: { ...sel, matchLabels: { ...(sel.matchLabels ?? {}), [HASH_LABEL]: hash } },
          template: t,
        },
      });
      this.ctx.store.put(R("ReplicaSet"), {
        ...rs,
        metadata: { ...rs.metadata, creationTimestamp: stamp(this.ctx.clock, at) },
      });
    });
    return variants.length;
  }
}
