// PodDisruptionBudgets, as kube-controller-manager's disruption controller keeps their status
// (pkg/controller/disruption/disruption.go): the pods a budget selects, how many are expected
// (the scale of their controllers when the budget is a percentage or maxUnavailable), how many
// must stay healthy, how many are, and so how many may be disrupted. Pods the eviction API has
// just approved (status.disruptedPods) count as gone for two minutes (DeletionTimeout).
import { isDeepStrictEqual } from "node:util";
import { disruptionAllowed } from "../api/eviction.js";
import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import { parseTime } from "../api/table/duration.js";
import type { SimContext } from "../context/context.js";
import { controllerOf, keyOf, podReady, splitKey } from "../core/meta.js";
import type { Deployment, PdbSpec, PdbStatus, ReplicaSet, StatefulSet } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const NAME = "disruption";
const DELETION_TIMEOUT_MS = 2 * 60 * 1000;
const SOURCE = { component: "controllermanager" };

/** "50%" of n, or an integer as given; percentages round up, as GetScaledValueFromIntOrPercent(…, true). */
function scaled(v: number | string, n: number): number {
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(v);
  return m ? Math.ceil((Number(m[1]) * n) / 100) : Number(v);
}

export function installDisruptionController(ctx: SimContext): void {
  const { store, runtime } = ctx;
  runtime.register(NAME, (key) => sync(ctx, key));
  const budgetsIn = (ns: string | undefined) => {
    for (const pdb of store.list(R("PodDisruptionBudget"), ns)) runtime.enqueue(NAME, keyOf(pdb));
  };
  store.subscribe((e) => {
    const kind = e.rt.kind;
    if (kind === "PodDisruptionBudget") {
      if (e.type !== "DELETED") runtime.enqueue(NAME, keyOf(e.object));
    } else if (["Pod", "ReplicaSet", "Deployment", "StatefulSet"].includes(kind)) {
      budgetsIn(e.object.metadata.namespace);
    }
  });
}

function sync(ctx: SimContext, key: string): void {
  const { registry, store, clock, events, runtime } = ctx;
  const [ns, name] = splitKey(key);
  const pdb = registry.tryGet(R("PodDisruptionBudget"), ns, name);
  if (!pdb || pdb.metadata.deletionTimestamp) return;
  const spec: PdbSpec = pdb.spec ?? {};
  const sel = spec.selector;
  const selects = sel && (Object.keys(sel.matchLabels ?? {}).length || (sel.matchExpressions ?? []).length);
  const pods = selects ? store.list(R("Pod"), ns).filter((p) => selectorMatches(sel, p.metadata.labels)) : [];
  if (pods.length === 0) events.record(pdb, "Normal", "NoPods", "No matching pods found", SOURCE);
  const st: PdbStatus = pdb.status ?? {};
  const now = clock.now();

  let expected = pods.length;
  let desired = 0;
  let failSafe = false;
  if (
    spec.maxUnavailable !== undefined ||
    (typeof spec.minAvailable === "string" && spec.minAvailable.endsWith("%"))
  ) {
    const scale = expectedScale(ctx, pods);
    if (scale.orphan) {
      failSafe = true;
      events.record(
        pdb,
        "Warning",
        "CalculateExpectedPodCountFailed",
        `Failed to calculate the number of expected pods: found no controllers for pod "${scale.orphan}"`,
        SOURCE,
      );
    }
    expected = scale.count;
    desired =
      spec.maxUnavailable !== undefined
        ? Math.max(0, expected - scaled(spec.maxUnavailable, expected))
        : scaled(spec.minAvailable!, expected); // a percentage here: the branch's condition
  } else if (spec.minAvailable !== undefined) {
    desired = scaled(spec.minAvailable, expected);
  }

  // approved evictions still pending count as gone until the pod is deleted or they expire
  const disrupted: Record<string, string> = {};
  let soonest = Number.POSITIVE_INFINITY;
  for (const p of pods) {
    const at = st.disruptedPods?.[p.metadata.name!];
    if (at === undefined || p.metadata.deletionTimestamp) continue;
    const expires = clock.fromWall(parseTime(at) ?? 0) + DELETION_TIMEOUT_MS; // stamps are wall time
    if (expires <= now) continue;
    disrupted[p.metadata.name!] = at;
    soonest = Math.min(soonest, expires - now);
  }
  if (soonest !== Number.POSITIVE_INFINITY) runtime.enqueueAfter(NAME, key, soonest);
  const healthy = pods.filter(
    (p) => podReady(p) && !p.metadata.deletionTimestamp && disrupted[p.metadata.name!] === undefined,
  ).length;

  const status: PdbStatus = {
    observedGeneration: pdb.metadata.generation,
    ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
    disruptionsAllowed: failSafe ? 0 : Math.max(0, healthy - desired),
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
    conditions: st.conditions,
  };
  status.conditions = disruptionAllowed(status, registry.now());
  if (isDeepStrictEqual(status, st)) return;
  registry.update(
    R("PodDisruptionBudget"),
    ns,
    name,
    { ...pdb, status },
    { subresource: "status", force: true },
  );
}

/** The summed scale of the controllers of `pods` (a Deployment's for its ReplicaSets' pods). */
function expectedScale(ctx: SimContext, pods: KObject[]): { count: number; orphan?: string } {
  const { registry } = ctx;
  const seen = new Map<string, number>();
  for (const p of pods) {
    const ref = controllerOf(p);
    const ns = p.metadata.namespace;
    let owner: Deployment | ReplicaSet | StatefulSet | undefined;
    if (ref?.kind === "ReplicaSet") {
      const rs = registry.tryGet(R("ReplicaSet"), ns, ref.name) as ReplicaSet | undefined;
      const dref = rs && controllerOf(rs);
      owner =
        dref?.kind === "Deployment"
          ? (registry.tryGet(R("Deployment"), ns, dref.name) as Deployment | undefined)
          : rs;
    } else if (ref?.kind === "StatefulSet")
      owner = registry.tryGet(R("StatefulSet"), ns, ref.name) as StatefulSet | undefined;
    if (!owner) return { count: 0, orphan: p.metadata.name };
    seen.set(owner.metadata.uid!, owner.spec?.replicas ?? 1);
  }
  return { count: [...seen.values()].reduce((a, b) => a + b, 0) };
}
