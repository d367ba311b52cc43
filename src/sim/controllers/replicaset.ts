// ReplicaSets, as kube's replicaset controller runs them: keep spec.replicas active pods (not
// terminating, not finished) that the set controls, adopting orphans its selector matches and
// releasing pods it no longer matches; delete surplus pods least useful first; report replicas,
// fully labeled, ready and available (ready for minReadySeconds) counts.

import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import { ApiError } from "../api/status.js";
import type { SimContext } from "../context/context.js";
import { controllerOf, keyOf, splitKey } from "../core/meta.js";
import type { Pod, ReplicaSet, ReplicaSetStatus } from "../core/objects.js";
import { omitZero, Requeuer, writeStatus } from "./workload-status.js";
import {
  claim,
  deletionOrder,
  freshName,
  isActive,
  namespaceActive,
  podFromTemplate,
  podReady,
  untilAvailable,
} from "./workload-util.js";

const NAME = "replicaset";
const SOURCE = { component: "replicaset-controller" };
/** kube creates at most this many pods per sync (burstReplicas). */
const BURST = 500;

export function installReplicaSetController(ctx: SimContext): void {
  const { store, runtime } = ctx;
  const requeue = new Requeuer(ctx, NAME);
  runtime.register(NAME, (key) => syncReplicaSet(ctx, key, requeue));

  store.subscribe((e) => {
    if (e.rt.kind === "ReplicaSet") {
      if (e.type !== "DELETED") runtime.enqueue(NAME, keyOf(e.object));
      return;
    }
    if (e.rt.kind !== "Pod") return;
    const ns = e.object.metadata.namespace;
    // the set that controls the pod now and the one that did before (a release or adoption)
    for (const o of [e.object, e.old]) {
      const ref = o && controllerOf(o);
      if (ref?.kind === "ReplicaSet") runtime.enqueue(NAME, `${ns}/${ref.name}`);
    }
    // an orphan may be adopted by any set whose selector matches it
    if (e.type !== "DELETED" && !controllerOf(e.object))
      for (const rs of store.list(R("ReplicaSet"), ns) as ReplicaSet[])
        if (selectorMatches(rs.spec?.selector, e.object.metadata.labels)) runtime.enqueue(NAME, keyOf(rs));
  });
}

function syncReplicaSet(ctx: SimContext, key: string, requeue: Requeuer): void {
  const { registry, store, clock } = ctx;
  const [ns, name] = splitKey(key);
  const rs = registry.tryGet(R("ReplicaSet"), ns, name) as ReplicaSet | undefined;
  if (!rs) return;
  const candidates = (store.list(R("Pod"), ns) as Pod[]).filter(isActive);
  let pods = claim(ctx, R("Pod"), rs, candidates);
  let failure: string | undefined;
  if (!rs.metadata.deletionTimestamp && namespaceActive(ctx, ns))
    ({ pods, failure } = manageReplicas(ctx, rs, pods));
  // a refused create is retried with the workqueue's exponential back-off (5 ms doubling, 1000 s cap)
  const failures = failuresOf.get(ctx) ?? new Map<string, number>();
  failuresOf.set(ctx, failures);
  const fails = failure ? (failures.get(key) ?? 0) + 1 : 0;
  if (fails) {
    failures.set(key, fails);
    requeue.after(key, Math.min(1_000_000, 5 * 2 ** fails));
  } else failures.delete(key);

  const now = clock.now();
  const minReady = rs.spec?.minReadySeconds ?? 0;
  const templateLabels: Record<string, string> = rs.spec?.template?.metadata?.labels ?? {};
  let ready = 0;
  let available = 0;
  let fullyLabeled = 0;
  let soonest = Number.POSITIVE_INFINITY;
  for (const p of pods) {
    if (Object.entries(templateLabels).every(([k, v]) => p.metadata.labels?.[k] === v)) fullyLabeled++;
    if (!podReady(p)) continue;
    ready++;
    const wait = untilAvailable(p, minReady, now, clock);
    if (wait === 0) available++;
    else soonest = Math.min(soonest, wait);
  }
  // a ready pod becomes available later without any write to tell us: look again then
  if (soonest !== Number.POSITIVE_INFINITY) requeue.after(key, soonest);
  const status: ReplicaSetStatus = omitZero(
    {
      replicas: pods.length,
      fullyLabeledReplicas: fullyLabeled,
      readyReplicas: ready,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation,
    },
    ["replicas"],
  );
  // ReplicaFailure while creates are refused (replica_set_utils.go calculateStatus): set by the
  // first refusal and kept as it is until a sync succeeds, so later refusals (each naming another
  // pod) do not rewrite the status and wake the set again
  const others = (rs.status?.conditions ?? []).filter((c) => c.type !== "ReplicaFailure");
  const prevFailure = (rs.status?.conditions ?? []).find((c) => c.type === "ReplicaFailure");
  const conditions = failure
    ? [
        ...others,
        prevFailure
          ? prevFailure
          : {
              type: "ReplicaFailure",
              status: "True",
              lastTransitionTime: ctx.registry.now(),
              reason: "FailedCreate",
              message: failure,
            },
      ]
    : others;
  if (conditions.length) status.conditions = conditions;
  writeStatus(ctx, R("ReplicaSet"), registry.get(R("ReplicaSet"), ns, name), status);
}

/** Refused creates in a row, per cluster and set. */
const failuresOf = new WeakMap<SimContext, Map<string, number>>();

/**
 * Create or delete pods so that `pods` (the active ones the set controls) number spec.replicas.
 * A create the API refuses (admission) stops this round with a FailedCreate event.
 */
function manageReplicas(ctx: SimContext, rs: ReplicaSet, pods: Pod[]): { pods: Pod[]; failure?: string } {
  const { registry, events } = ctx;
  const ns = rs.metadata.namespace;
  const want = rs.spec?.replicas ?? 1;
  const diff = pods.length - want;
  if (diff < 0) {
    const created: Pod[] = [];
    for (let i = 0; i < Math.min(-diff, BURST); i++) {
      const prefix = `${rs.metadata.name}-`;
      const pod = podFromTemplate(rs, rs.spec.template, freshName(ctx, R("Pod"), ns, prefix), prefix);
      try {
        created.push(registry.create(R("Pod"), ns, pod) as Pod);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code === 409) throw e;
        events.record(rs, "Warning", "FailedCreate", `Error creating: ${e.message}`, SOURCE);
        return { pods: [...pods, ...created], failure: e.message };
      }
      events.record(rs, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, SOURCE);
    }
    return { pods: [...pods, ...created] };
  }
  if (diff > 0) {
    const doomed = [...pods].sort(deletionOrder).slice(0, diff);
    for (const p of doomed) {
      registry.delete(R("Pod"), ns, p.metadata.name!);
      events.record(rs, "Normal", "SuccessfulDelete", `Deleted pod: ${p.metadata.name}`, SOURCE);
    }
    const gone = new Set(doomed.map((p) => p.metadata.name));
    return { pods: pods.filter((p) => !gone.has(p.metadata.name)) };
  }
  return { pods };
}
