// How a Deployment moves between ReplicaSets, after kube's rolling.go, recreate.go and sync.go:
// RollingUpdate (surge the new set up, take old ones down as availability allows), Recreate
// (all old pods gone before the new set starts), scaling (proportional in mid-rollout) and
// the cleanup of old ReplicaSets beyond revisionHistoryLimit.

import { R } from "../api/resources.js";
import { controllerOf } from "../core/meta.js";
import type { ReplicaSet } from "../core/objects.js";
import { getReplicaSets } from "./deployment-revision.js";
import { deploymentComplete, syncDeploymentStatus, syncRolloutStatus } from "./deployment-status.js";
import {
  active,
  byCreation,
  type DSync,
  desiredAnnotation,
  fresh,
  hasHistoryLimit,
  isRolling,
  maxAnnotation,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  replicasOf,
  revisionOf,
  scaleReplicaSet,
  scaleTo,
  sumSpec,
  sumStatus,
} from "./deployment-util.js";
import { isFinished } from "./workload-util.js";

const olds = (s: DSync, newRS: ReplicaSet | undefined) =>
  s.rsList.filter((rs) => rs.metadata.uid !== newRS?.metadata.uid);
const availableOf = (rs: ReplicaSet | undefined) => rs?.status?.availableReplicas ?? 0;

export function rolloutRolling(s: DSync): void {
  const { newRS } = getReplicaSets(s, true);
  if (!newRS) {
    syncDeploymentStatus(s, undefined);
    return;
  }
  // one step per sync: the write it makes brings us back for the next one
  const stepped = reconcileNewReplicaSet(s, newRS) || reconcileOldReplicaSets(s, newRS);
  if (!stepped && deploymentComplete(s.d, s.d.status)) cleanupDeployment(s, newRS);
  syncRolloutStatus(s, newRS);
}

function reconcileNewReplicaSet(s: DSync, newRS: ReplicaSet): boolean {
  const want = replicasOf(s.d);
  const have = replicasOf(newRS);
  if (have === want) return false;
  if (have > want) return scaleTo(s, newRS, want);
  return scaleTo(s, newRS, newRSNewReplicas(s.d, s.rsList, newRS));
}

function reconcileOldReplicaSets(s: DSync, newRS0: ReplicaSet): boolean {
  const newRS = fresh(s, newRS0)!;
  if (sumSpec(active(olds(s, newRS))) === 0) return false;
  const minAvailable = replicasOf(s.d) - maxUnavailable(s.d);
  // pods of the new set that are not available yet must not let old ones go (kube #16737)
  const newUnavailable = replicasOf(newRS) - availableOf(newRS);
  const maxScaledDown = sumSpec(s.rsList) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  const cleaned = cleanupUnhealthyReplicas(s, newRS, maxScaledDown);
  return cleaned + scaleDownOldForRollingUpdate(s, newRS, minAvailable) > 0;
}

/** Old pods that are not available anyway can go first: that costs no availability. */
function cleanupUnhealthyReplicas(s: DSync, newRS: ReplicaSet, max: number): number {
  let total = 0;
  for (const rs of active(olds(s, newRS)).sort(byCreation)) {
    if (total >= max) break;
    const unhealthy = replicasOf(rs) - availableOf(rs);
    if (unhealthy <= 0) continue;
    const n = Math.min(max - total, unhealthy);
    scaleTo(s, rs, replicasOf(rs) - n);
    total += n;
  }
  return total;
}

function scaleDownOldForRollingUpdate(s: DSync, newRS: ReplicaSet, minAvailable: number): number {
  const oldActive = active(olds(s, newRS)).sort(byCreation);
  const availableNow = sumStatus([...oldActive, fresh(s, newRS)!], "availableReplicas");
  if (availableNow <= minAvailable) return 0;
  const target = availableNow - minAvailable;
  let total = 0;
  for (const rs of oldActive) {
    if (total >= target) break;
    const n = Math.min(replicasOf(rs), target - total);
    scaleTo(s, rs, replicasOf(rs) - n);
    total += n;
  }
  return total;
}

export function rolloutRecreate(s: DSync): void {
  const { oldRSs, newRS: found } = getReplicaSets(s, false);
  let newRS = found;
  let scaledDown = false;
  for (const rs of active(oldRSs)) if (scaleTo(s, rs, 0)) scaledDown = true;
  // all old pods must be gone, terminating ones included, before any new one starts
  if (!scaledDown && !oldPodsRunning(s, newRS)) {
    newRS ??= getReplicaSets(s, true).newRS;
    if (!newRS) {
      syncDeploymentStatus(s, undefined);
      return;
    }
    scaleTo(s, newRS, replicasOf(s.d));
    if (deploymentComplete(s.d, s.d.status)) cleanupDeployment(s, newRS);
  }
  syncRolloutStatus(s, newRS);
}

/** Recreate waits until no pod of an old ReplicaSet is left, terminating ones included. */
function oldPodsRunning(s: DSync, newRS: ReplicaSet | undefined): boolean {
  const old = olds(s, newRS);
  if (sumStatus(old, "replicas") > 0) return true;
  const uids = new Set(old.map((rs) => rs.metadata.uid));
  return s.ctx.store
    .list(R("Pod"), s.d.metadata.namespace)
    .some((p) => uids.has(controllerOf(p)?.uid ?? "") && !isFinished(p));
}

/** Active ReplicaSets whose desired-replicas annotation disagrees with spec.replicas: a scaling event. */
export function isScalingEvent(s: DSync): boolean {
  const { newRS, oldRSs } = getReplicaSets(s, false);
  return active([...oldRSs, newRS]).some((rs) => {
    const desired = desiredAnnotation(rs);
    return desired !== undefined && desired !== replicasOf(s.d);
  });
}

/** Scaling and paused Deployments: resize without rolling (kube's sync). */
export function syncScaling(s: DSync): void {
  const { newRS, oldRSs } = getReplicaSets(s, false);
  scale(s, newRS, oldRSs);
  if (s.d.spec.paused) cleanupDeployment(s, newRS);
  syncDeploymentStatus(s, newRS);
}

function scale(s: DSync, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): void {
  const want = replicasOf(s.d);
  const newestFirst = [...oldRSs].sort(byCreation).reverse();
  const act = active([...newestFirst, newRS]);
  const only = act.length === 1 ? act[0] : act.length === 0 ? (newRS ?? newestFirst[0]) : undefined;
  if (only || act.length === 0) {
    if (only && replicasOf(only) !== want) scaleTo(s, only, want);
    return;
  }
  if (
    newRS &&
    replicasOf(newRS) === want &&
    desiredAnnotation(newRS) === want &&
    availableOf(newRS) === want
  ) {
    // the new set is saturated: the old ones go entirely
    for (const rs of active(oldRSs)) scaleTo(s, rs, 0);
    return;
  }
  if (!isRolling(s.d)) return;
  // proportional scaling: spread the difference over the active sets by their share
  const allowed = want > 0 ? want + maxSurge(s.d) : 0;
  const toAdd = allowed - sumSpec(act);
  const sorted = [...act].sort(
    (a, b) => replicasOf(b) - replicasOf(a) || (toAdd > 0 ? -byCreation(a, b) : byCreation(a, b)),
  );
  const sizes = new Map<string, number>();
  let added = 0;
  for (const rs of sorted) {
    const p = toAdd === 0 ? 0 : proportion(s, rs, toAdd, added);
    sizes.set(rs.metadata.uid!, replicasOf(rs) + p);
    added += p;
  }
  sorted.forEach((rs, i) => {
    let n = sizes.get(rs.metadata.uid!)!;
    if (i === 0 && toAdd !== 0) n = Math.max(0, n + toAdd - added); // leftovers go to the largest
    scaleReplicaSet(s, fresh(s, rs)!, n, toAdd > 0 ? "up" : toAdd < 0 ? "down" : undefined);
  });
}

function proportion(s: DSync, rs: ReplicaSet, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === added) return 0;
  let fraction: number;
  if (replicasOf(s.d) === 0) fraction = -replicasOf(rs);
  else {
    const annotated = maxAnnotation(rs) ?? s.d.status?.replicas ?? 0;
    const target = annotated
      ? Math.round((replicasOf(rs) * (replicasOf(s.d) + maxSurge(s.d))) / annotated)
      : replicasOf(rs);
    fraction = target - replicasOf(rs);
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** Keep the newest revisionHistoryLimit old ReplicaSets; older empty ones are deleted. */
function cleanupDeployment(s: DSync, newRS: ReplicaSet | undefined): void {
  if (!hasHistoryLimit(s.d)) return;
  const cleanable = olds(s, newRS).filter((rs) => !rs.metadata.deletionTimestamp);
  // hasHistoryLimit said revisionHistoryLimit is a number
  const diff = cleanable.length - s.d.spec.revisionHistoryLimit!;
  if (diff <= 0) return;
  cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
  for (const rs of cleanable.slice(0, diff)) {
    const busy =
      (rs.status?.replicas ?? 0) !== 0 ||
      replicasOf(rs) !== 0 ||
      (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0);
    if (busy) continue;
    s.ctx.registry.delete(R("ReplicaSet"), rs.metadata.namespace, rs.metadata.name!);
    s.rsList = s.rsList.filter((x) => x.metadata.uid !== rs.metadata.uid);
  }
}
