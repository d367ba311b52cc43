// DaemonSets, as kube's daemonset controller runs them: one pod on every node the template fits,
// failed ones replaced, extras and misplaced ones deleted, RollingUpdate replacing outdated pods
// while at most maxUnavailable nodes lack an available one, ControllerRevisions for history.

import { R } from "../api/resources.js";
import { ApiError } from "../api/status.js";
import type { SimContext } from "../context/context.js";
import { controllerOf, keyOf, splitKey } from "../core/meta.js";
import type { DaemonSet, Node, Pod } from "../core/objects.js";
import { daemonPod, nodeShouldRun, targetNode } from "./daemonset-nodes.js";
import { listRevisions, syncRevisions, truncateHistory } from "./history.js";
import { omitZero, Requeuer, scaled, writeStatus } from "./workload-status.js";
import {
  claim,
  isAvailable,
  isFinished,
  isTerminating,
  namespaceActive,
  podReady,
  untilAvailable,
} from "./workload-util.js";

const NAME = "daemonset";
const HASH = "controller-revision-hash";
const SOURCE = { component: "daemonset-controller" };

export function installDaemonSetController(ctx: SimContext): void {
  const { store, runtime } = ctx;
  const requeue = new Requeuer(ctx, NAME);
  runtime.register(NAME, (key) => syncDaemonSet(ctx, key, requeue));
  store.subscribe((e) => {
    if (e.rt.kind === "DaemonSet") {
      if (e.type !== "DELETED") runtime.enqueue(NAME, keyOf(e.object));
    } else if (e.rt.kind === "Node") {
      for (const ds of store.list(R("DaemonSet"))) runtime.enqueue(NAME, keyOf(ds));
    } else if (e.rt.kind === "Pod" || e.rt.kind === "ControllerRevision") {
      for (const o of [e.object, e.old]) {
        const ref = o && controllerOf(o);
        if (ref?.kind === "DaemonSet") runtime.enqueue(NAME, `${e.object.metadata.namespace}/${ref.name}`);
      }
    }
  });
}

function syncDaemonSet(ctx: SimContext, key: string, requeue: Requeuer): void {
  const { registry, store } = ctx;
  const [ns, name] = splitKey(key);
  const ds = registry.tryGet(R("DaemonSet"), ns, name) as DaemonSet | undefined;
  if (!ds || ds.metadata.deletionTimestamp) return;
  const revs = syncRevisions(ctx, ds, listRevisions(ctx, ds), HASH);
  const hash = revs.update.metadata.labels?.[HASH] ?? "";
  const nodes = store.list(R("Node")) as Node[];
  const owned = () => claim(ctx, R("Pod"), ds, store.list(R("Pod"), ns) as Pod[]);
  if (namespaceActive(ctx, ns)) {
    manage(ctx, ds, nodes, owned(), hash);
    if (ds.spec?.updateStrategy?.type !== "OnDelete") rollingUpdate(ctx, ds, nodes, owned(), hash);
  }
  const pods = owned();
  const status = daemonSetStatus(ctx, ds, nodes, pods, hash, requeue, key);
  writeStatus(ctx, R("DaemonSet"), registry.get(R("DaemonSet"), ns, name), status);
  const live = new Set([
    revs.update.metadata.name!,
    ...revs.revisions
      .filter((cr) => pods.some((p) => p.metadata.labels?.[HASH] === cr.metadata.labels?.[HASH]))
      .map((cr) => cr.metadata.name!),
  ]);
  truncateHistory(ctx, ds, revs.revisions, live);
}

/** Live (not terminating) daemon pods by the node they are for. */
function byNode(pods: Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const p of pods) {
    const node = targetNode(p);
    if (!node || isTerminating(p)) continue;
    out.set(node, [...(out.get(node) ?? []), p]);
  }
  return out;
}

function remove(ctx: SimContext, ds: DaemonSet, pod: Pod): void {
  ctx.registry.delete(R("Pod"), pod.metadata.namespace, pod.metadata.name!);
  ctx.events.record(ds, "Normal", "SuccessfulDelete", `Deleted pod: ${pod.metadata.name}`, SOURCE);
}

/** One pod per fitting node: create missing ones, replace failed ones, drop extras and misfits. */
function manage(ctx: SimContext, ds: DaemonSet, nodes: Node[], pods: Pod[], hash: string): void {
  const placed = byNode(pods);
  for (const node of nodes) {
    const here = placed.get(node.metadata.name!) ?? [];
    if (!nodeShouldRun(ds, node)) {
      for (const p of here) remove(ctx, ds, p);
      continue;
    }
    const running: Pod[] = [];
    for (const p of here) {
      if (!isFinished(p)) running.push(p);
      else {
        ctx.events.record(
          ds,
          "Warning",
          "FailedDaemonPod",
          `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${node.metadata.name}, will try to kill it`,
          SOURCE,
        );
        remove(ctx, ds, p);
      }
    }
    if (running.length === 0) {
      let pod: Pod;
      try {
        pod = ctx.registry.create(
          R("Pod"),
          ds.metadata.namespace,
          daemonPod(ctx, ds, node.metadata.name!, hash),
        ) as Pod;
      } catch (e) {
        // refused by admission: controller_utils.go CreatePods records it and the sync is retried
        if (e instanceof ApiError && e.code !== 409)
          ctx.events.record(ds, "Warning", "FailedCreate", `Error creating: ${e.message}`, SOURCE);
        throw e;
      }
      ctx.events.record(ds, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, SOURCE);
    }
    // the oldest stays
    running.sort((a, b) =>
      (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? ""),
    );
    for (const extra of running.slice(1)) remove(ctx, ds, extra);
  }
}

/** Replace outdated pods: unavailable ones at once, available ones while maxUnavailable allows. */
function rollingUpdate(ctx: SimContext, ds: DaemonSet, nodes: Node[], pods: Pod[], hash: string): void {
  const eligible = nodes.filter((n) => nodeShouldRun(ds, n));
  const placed = byNode(pods);
  const now = ctx.clock.now();
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const maxUnavailable = Math.max(
    1,
    scaled(ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, eligible.length, true),
  );
  let unavailable = 0;
  const oldAvailable: Pod[] = [];
  for (const node of eligible) {
    const p = placed.get(node.metadata.name!)?.[0];
    const ok = Boolean(p) && isAvailable(p!, minReady, now, ctx.clock);
    if (!ok) unavailable++;
    if (!p || p.metadata.labels?.[HASH] === hash) continue;
    if (ok) oldAvailable.push(p);
    else remove(ctx, ds, p); // costs nothing: it is not serving anyway
  }
  for (const p of oldAvailable) {
    if (unavailable >= maxUnavailable) break;
    remove(ctx, ds, p);
    unavailable++;
  }
}

function daemonSetStatus(
  ctx: SimContext,
  ds: DaemonSet,
  nodes: Node[],
  pods: Pod[],
  hash: string,
  requeue: Requeuer,
  key: string,
) {
  const placed = byNode(pods);
  const now = ctx.clock.now();
  const minReady = ds.spec?.minReadySeconds ?? 0;
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  for (const node of nodes) {
    const here = placed.get(node.metadata.name!) ?? [];
    if (!nodeShouldRun(ds, node)) {
      if (here.length) misscheduled++;
      continue;
    }
    desired++;
    if (!here.length) continue;
    current++;
    const p = here[0];
    if (p.metadata.labels?.[HASH] === hash) updated++;
    if (!podReady(p)) continue;
    ready++;
    const wait = untilAvailable(p, minReady, now, ctx.clock);
    if (wait === 0) available++;
    else requeue.after(key, wait);
  }
  return omitZero(
    {
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      desiredNumberScheduled: desired,
      numberReady: ready,
      observedGeneration: ds.metadata.generation,
      updatedNumberScheduled: updated,
      numberAvailable: available,
      numberUnavailable: desired - available,
    },
    ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
  );
}
