// StatefulSets, as kube's statefulset controller runs them: pods `<set>-<ordinal>` created in
// order, each only once the one before is Running and Ready (OrderedReady) or all at once
// (Parallel); scale-down from the highest ordinal; RollingUpdate from the highest ordinal, one
// pod at a time, waiting for each replacement to be Ready; ControllerRevisions for history.

import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import type { SimContext } from "../context/context.js";
import { controllerOf, keyOf, splitKey } from "../core/meta.js";
import type { ControllerRevision, Pod, StatefulSet } from "../core/objects.js";
import { listRevisions, syncRevisions, templateOf, truncateHistory } from "./history.js";
import {
  createPod,
  deletePod,
  ordinalOf,
  revisionOfPod,
  runningAndAvailable,
  runningAndReady,
  statefulPod,
  statefulSetStatus,
} from "./statefulset-pods.js";
import { Requeuer, writeStatus } from "./workload-status.js";
import { claim, isFinished, isTerminating, namespaceActive, untilAvailable } from "./workload-util.js";

const NAME = "statefulset";

export function installStatefulSetController(ctx: SimContext): void {
  const { store, runtime } = ctx;
  const requeue = new Requeuer(ctx, NAME);
  runtime.register(NAME, (key) => syncStatefulSet(ctx, key, requeue));
  store.subscribe((e) => {
    const ns = e.object.metadata.namespace;
    if (e.rt.kind === "StatefulSet") {
      if (e.type !== "DELETED") runtime.enqueue(NAME, keyOf(e.object));
    } else if (e.rt.kind === "Pod" || e.rt.kind === "ControllerRevision") {
      for (const o of [e.object, e.old]) {
        const ref = o && controllerOf(o);
        if (ref?.kind === "StatefulSet") runtime.enqueue(NAME, `${ns}/${ref.name}`);
      }
      if (e.rt.kind === "Pod" && e.type !== "DELETED" && !controllerOf(e.object))
        for (const set of store.list(R("StatefulSet"), ns) as StatefulSet[])
          if (
            selectorMatches(set.spec?.selector, e.object.metadata.labels) &&
            ordinalOf(set.metadata.name!, e.object) >= 0
          )
            runtime.enqueue(NAME, keyOf(set));
    }
  });
}

function syncStatefulSet(ctx: SimContext, key: string, requeue: Requeuer): void {
  const { registry, store } = ctx;
  const [ns, name] = splitKey(key);
  const set = registry.tryGet(R("StatefulSet"), ns, name) as StatefulSet | undefined;
  // a set being deleted is left to the garbage collector
  if (!set || set.metadata.deletionTimestamp) return;
  const revs = syncRevisions(ctx, set, listRevisions(ctx, set), "controller.kubernetes.io/hash");
  const owned = () =>
    claim(ctx, R("Pod"), set, store.list(R("Pod"), ns) as Pod[], (p) => ordinalOf(name, p) >= 0);
  if (namespaceActive(ctx, ns)) updatePods(ctx, set, revs.current, revs.update, owned(), requeue, key);
  const pods = owned();
  const status = statefulSetStatus(
    set,
    pods,
    revs.current.metadata.name!,
    revs.update.metadata.name!,
    revs.collisionCount,
    ctx.clock,
  );
  if (set.status?.conditions?.length) status.conditions = set.status.conditions;
  writeStatus(ctx, R("StatefulSet"), registry.get(R("StatefulSet"), ns, name), status);
  const live = new Set([status.currentRevision, status.updateRevision, ...pods.map(revisionOfPod)]);
  truncateHistory(ctx, set, revs.revisions, live);
}

/** One pass of updateStatefulSet: create, recreate failed, condemn surplus, then roll one pod. */
function updatePods(
  ctx: SimContext,
  set: StatefulSet,
  current: ControllerRevision,
  update: ControllerRevision,
  pods: Pod[],
  requeue: Requeuer,
  key: string,
): void {
  const name = set.metadata.name!;
  const start = set.spec?.ordinals?.start ?? 0;
  const n = set.spec?.replicas ?? 1;
  const monotonic = set.spec?.podManagementPolicy !== "Parallel";
  const minReady = set.spec?.minReadySeconds ?? 0;
  const now = ctx.clock.now();
  const replicas: (Pod | undefined)[] = new Array(n).fill(undefined);
  const condemned: Pod[] = [];
  for (const p of pods) {
    const ord = ordinalOf(name, p);
    if (ord >= start && ord < start + n) replicas[ord - start] = p;
    else condemned.push(p);
  }
  condemned.sort((a, b) => ordinalOf(name, a) - ordinalOf(name, b));
  const healthy = (p: Pod | undefined) =>
    Boolean(p) && !isTerminating(p!) && runningAndAvailable(p!, minReady, now, ctx.clock);
  const firstUnhealthy = [...replicas, ...condemned].find((p) => p && !healthy(p));

  // 1. every ordinal in range gets a pod; OrderedReady waits for each to be Running and Ready
  const rolling = set.spec?.updateStrategy?.rollingUpdate;
  for (let i = 0; i < n; i++) {
    let p = replicas[i];
    if (p && isFinished(p) && !isTerminating(p)) {
      ctx.events.record(
        set,
        "Warning",
        "RecreatingFailedPod",
        `StatefulSet ${set.metadata.namespace}/${name} is recreating failed Pod ${p.metadata.name}`,
        { component: "statefulset-controller" },
      );
      deletePod(ctx, set, p);
      p = undefined;
    }
    if (!p) {
      // ordinals below the partition stay at the current revision
      const atCurrent =
        typeof rolling?.partition === "number"
          ? i < rolling.partition
          : set.spec?.updateStrategy?.type !== "OnDelete" &&
            !rolling &&
            i < (set.status?.currentReplicas ?? 0);
      const rev = atCurrent ? current : update;
      const template = atCurrent ? templateOf(current) : set.spec.template;
      if (ctx.registry.tryGet(R("Pod"), set.metadata.namespace, `${name}-${start + i}`)) return; // the old one is still going
      replicas[i] = createPod(ctx, set, statefulPod(set, template, rev.metadata.name!, start + i), start + i);
      if (monotonic) return;
      continue;
    }
    if (!monotonic) continue;
    if (isTerminating(p) || !runningAndReady(p)) return;
    const wait = untilAvailable(p, minReady, now, ctx.clock);
    if (wait > 0) {
      requeue.after(key, wait);
      return;
    }
  }

  // 2. surplus pods go from the highest ordinal, one at a time when ordered
  for (let t = condemned.length - 1; t >= 0; t--) {
    const c = condemned[t];
    if (isTerminating(c)) {
      if (monotonic) return;
      continue;
    }
    if (monotonic && !runningAndReady(c) && c !== firstUnhealthy) return;
    deletePod(ctx, set, c);
    if (monotonic) return;
  }

  // 3. RollingUpdate: replace the highest outdated pod once everything above it is healthy
  if (set.spec?.updateStrategy?.type === "OnDelete") return;
  for (let t = n - 1; t >= (rolling?.partition ?? 0); t--) {
    const p = replicas[t];
    if (!p) return;
    if (revisionOfPod(p) !== update.metadata.name && !isTerminating(p)) {
      deletePod(ctx, set, p);
      return;
    }
    if (!healthy(p)) return;
  }
}
