// POST pods/NAME/eviction (policy/v1 Eviction), what `kubectl drain` uses: a pod is deleted
// gracefully unless a PodDisruptionBudget that selects it has no disruption left, which answers
// 429. Modelled on pkg/registry/core/pod/storage/eviction.go (EvictionREST.Create,
// checkAndDecrement, canIgnorePDB; addConditionAndDeletePod in releases with PodDisruptionConditions).

import type { PdbStatus, Pod, PodCondition, PodDisruptionBudget, StatusCondition } from "../core/objects.js";
import type { DeleteOptions, Registry } from "./registry.js";
import { resourceOfKind } from "./resources.js";
import { selectorMatches } from "./selectors.js";
import { ApiError, badRequest } from "./status.js";

const POD = resourceOfKind("Pod")!;
const PDB = resourceOfKind("PodDisruptionBudget")!;
const VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget.";

const tooMany = (retryAfterSeconds: number, cause: string) =>
  new ApiError(429, "TooManyRequests", VIOLATES, {
    causes: [{ reason: "DisruptionBudget", message: cause }],
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });

/** An Eviction as a client sends it: open JSON, checked field by field below. */
interface EvictionBody {
  kind?: unknown;
  apiVersion?: unknown;
  metadata?: { name?: unknown };
  deleteOptions?: {
    gracePeriodSeconds?: unknown;
    preconditions?: DeleteOptions["preconditions"];
    dryRun?: unknown;
  };
}

export const SUCCESS = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

/** Evict a pod; returns the Status to answer with, or throws the refusal. */
export function evict(registry: Registry, ns: string, name: string, body: unknown, dryRun: boolean) {
  const ev = body as EvictionBody;
  if (!ev || typeof ev !== "object" || Array.isArray(ev))
    throw badRequest("the object provided is not a JSON object");
  if (ev.kind && ev.kind !== "Eviction") throw badRequest(`not a Eviction object: ${ev.kind}`);
  if (ev.apiVersion && ev.apiVersion !== "policy/v1" && ev.apiVersion !== "policy/v1beta1")
    throw badRequest(
      `the API version in the data (${ev.apiVersion}) does not match the expected API version (policy/v1)`,
    );
  if (ev.metadata?.name !== name) throw badRequest("name in URL does not match name in Eviction object");
  const d = ev.deleteOptions ?? {};
  const opts: DeleteOptions = {
    gracePeriodSeconds: typeof d.gracePeriodSeconds === "number" ? d.gracePeriodSeconds : undefined,
    preconditions: d.preconditions,
    dryRun: dryRun || (Array.isArray(d.dryRun) && d.dryRun.includes("All")),
  };
  const pod = registry.get(POD, ns, name) as Pod;
  // a terminal, pending or terminating pod has already been disrupted: no budget to check
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pod.metadata.deletionTimestamp) {
    if (!opts.dryRun && !pod.metadata.deletionTimestamp) markDisrupted(registry, pod);
    registry.delete(POD, ns, name, opts);
    return SUCCESS;
  }
  const pdbs = budgetsOf(registry, pod);
  if (pdbs.length > 1)
    throw new ApiError(
      500,
      "",
      "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    );
  const pdb = pdbs[0];
  if (pdb) {
    const st: PdbStatus = pdb.status ?? {};
    const unreadyAndEnough =
      !podReady(pod) && (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0;
    if (!unreadyAndEnough) checkAndDecrement(registry, pdb, name, !!opts.dryRun);
  }
  if (!opts.dryRun) markDisrupted(registry, pod);
  registry.delete(POD, ns, name, opts);
  return SUCCESS;
}

/**
 * The DisruptionTarget condition a pod gets before it is deleted for a disruption (PodDisruptionConditions,
 * GA in 1.31): the eviction API's and the taint manager's, each with its own reason.
 */
export function markDisruptionTarget(registry: Registry, pod: Pod, reason: string, message: string) {
  const cond = {
    type: "DisruptionTarget",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: registry.now(),
    reason,
    message,
  };
  const conditions = [
    ...(pod.status?.conditions ?? []).filter((c: PodCondition) => c.type !== cond.type),
    cond,
  ];
  registry.update(
    POD,
    pod.metadata.namespace,
    pod.metadata.name!,
    { ...pod, status: { ...pod.status, conditions } },
    { subresource: "status", force: true },
  );
}

const markDisrupted = (registry: Registry, pod: Pod) =>
  markDisruptionTarget(registry, pod, "EvictionByEvictionAPI", "Eviction API: evicting");

const podReady = (p: Pod) =>
  (p.status?.conditions ?? []).some((c: PodCondition) => c.type === "Ready" && c.status === "True");

function budgetsOf(registry: Registry, pod: Pod): PodDisruptionBudget[] {
  return (registry.list(PDB, pod.metadata.namespace) as PodDisruptionBudget[]).filter((pdb) => {
    const sel = pdb.spec?.selector;
    // a nil or empty selector matches nothing
    const empty =
      !sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length);
    return !empty && selectorMatches(sel, pod.metadata.labels);
  });
}

function checkAndDecrement(registry: Registry, pdb: PodDisruptionBudget, podName: string, dryRun: boolean) {
  const st: PdbStatus = pdb.status ?? {};
  const name = pdb.metadata.name!;
  if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0))
    throw tooMany(10, `The disruption budget ${name} is still being processed by the server.`);
  const allowed: number = st.disruptionsAllowed ?? 0;
  if (allowed < 0)
    throw new ApiError(
      403,
      "Forbidden",
      `poddisruptionbudgets.policy "${name}" is forbidden: pdb disruptions allowed is negative`,
      { name, group: "policy", kind: "poddisruptionbudgets" },
    );
  if (allowed === 0)
    throw tooMany(
      0,
      `The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`,
    );
  if (dryRun) return;
  const status: PdbStatus = {
    ...st,
    disruptionsAllowed: allowed - 1,
    disruptedPods: { ...(st.disruptedPods ?? {}), [podName]: registry.now() },
  };
  if (status.disruptionsAllowed === 0) status.conditions = disruptionAllowed(status, registry.now());
  registry.update(PDB, pdb.metadata.namespace, name, { ...pdb, status }, { subresource: "status" });
}

/** The DisruptionAllowed condition (component-helpers/apps/poddisruptionbudget). */
export function disruptionAllowed(status: PdbStatus, now: string): StatusCondition[] {
  const ok = (status.disruptionsAllowed ?? 0) > 0;
  const prev: StatusCondition | undefined = (status.conditions ?? []).find(
    (c) => c.type === "DisruptionAllowed",
  );
  const cond = {
    type: "DisruptionAllowed",
    status: ok ? "True" : "False",
    observedGeneration: status.observedGeneration,
    lastTransitionTime: prev && prev.status === (ok ? "True" : "False") ? prev.lastTransitionTime : now,
    reason: ok ? "SufficientPods" : "InsufficientPods",
    message: "",
  };
  return [...(status.conditions ?? []).filter((c) => c.type !== "DisruptionAllowed"), cond];
}
