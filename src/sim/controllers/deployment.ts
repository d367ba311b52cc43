// Deployments, as kube's deployment controller runs them: one ReplicaSet per pod template
// (`<name>-<pod-template-hash>`), revisions in annotations so that `kubectl rollout history/undo`
// work client-side, RollingUpdate or Recreate between them, and the status `kubectl rollout
// status` waits for. The steps live in deployment-revision/-rollout/-status/-util; this file wires them.
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import type { SimContext } from "../context/context.js";
import { controllerOf, keyOf, splitKey } from "../core/meta.js";
import type { Deployment, ReplicaSet } from "../core/objects.js";
import { getReplicaSets } from "./deployment-revision.js";
import { isScalingEvent, rolloutRecreate, rolloutRolling, syncScaling } from "./deployment-rollout.js";
import { checkPausedConditions, syncDeploymentStatus } from "./deployment-status.js";
import type { DeploymentView, DSync } from "./deployment-util.js";
import { Requeuer } from "./workload-status.js";
import { claim } from "./workload-util.js";

const NAME = "deployment";

export function installDeploymentController(ctx: SimContext): void {
  const { store, runtime } = ctx;
  const requeue = new Requeuer(ctx, NAME);
  runtime.register(NAME, (key) => syncDeployment(ctx, key, requeue));

  store.subscribe((e) => {
    const ns = e.object.metadata.namespace;
    if (e.rt.kind === "Deployment") {
      if (e.type !== "DELETED") runtime.enqueue(NAME, keyOf(e.object));
    } else if (e.rt.kind === "ReplicaSet") {
      for (const o of [e.object, e.old]) {
        const ref = o && controllerOf(o);
        if (ref?.kind === "Deployment") runtime.enqueue(NAME, `${ns}/${ref.name}`);
      }
      // an orphaned ReplicaSet may be adopted by a Deployment whose selector matches it
      if (e.type !== "DELETED" && !controllerOf(e.object))
        for (const d of store.list(R("Deployment"), ns) as Deployment[])
          if (selectorMatches(d.spec?.selector, e.object.metadata.labels)) runtime.enqueue(NAME, keyOf(d));
    } else if (e.rt.kind === "Pod" && e.type === "DELETED") {
      // Recreate waits for the last old pod to be gone: nothing else would tell it
      const ref = controllerOf(e.object);
      const rs = ref?.kind === "ReplicaSet" ? store.get(R("ReplicaSet"), ns, ref.name) : undefined;
      const dref = rs && controllerOf(rs);
      if (dref?.kind !== "Deployment") return;
      const d = store.get(R("Deployment"), ns, dref.name) as Deployment | undefined;
      if (d?.spec?.strategy?.type === "Recreate") runtime.enqueue(NAME, keyOf(d));
    }
  });
}

function syncDeployment(ctx: SimContext, key: string, requeue: Requeuer): void {
  const { registry, store } = ctx;
  const [ns, name] = splitKey(key);
  const d0 = registry.tryGet(R("Deployment"), ns, name) as DeploymentView | undefined;
  if (!d0) return;
  const sel = d0.spec?.selector;
  if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) {
    ctx.events.record(
      d0,
      "Warning",
      "SelectingAll",
      "This deployment is selecting all pods. A non-empty selector is required.",
      { component: "deployment-controller" },
    );
    return;
  }
  const s: DSync = {
    ctx,
    key,
    d: structuredClone(d0),
    rsList: claim(ctx, R("ReplicaSet"), d0, store.list(R("ReplicaSet"), ns) as ReplicaSet[]),
    requeue,
  };
  if (s.d.metadata.deletionTimestamp) {
    syncDeploymentStatus(s, getReplicaSets(s, false).newRS);
  } else {
    checkPausedConditions(s);
    if (s.d.spec.paused || isScalingEvent(s)) syncScaling(s);
    else if (s.d.spec.strategy?.type === "Recreate") rolloutRecreate(s);
    else rolloutRolling(s);
  }
  save(s);
}

/** Write what the sync changed on the Deployment: its revision annotation and its status. */
function save(s: DSync): void {
  const cur = s.ctx.registry.tryGet(R("Deployment"), s.d.metadata.namespace, s.d.metadata.name!);
  if (!cur || cur.metadata.uid !== s.d.metadata.uid) return;
  const annotations = s.d.metadata.annotations;
  if (isDeepStrictEqual(cur.metadata.annotations, annotations) && isDeepStrictEqual(cur.status, s.d.status))
    return;
  const next = { ...cur, metadata: { ...cur.metadata, annotations }, status: s.d.status };
  if (!annotations) delete next.metadata.annotations;
  s.ctx.registry.update(R("Deployment"), cur.metadata.namespace, cur.metadata.name!, next, { force: true });
}
