// Deployment status, after kube's sync.go calculateStatus and progress.go: counts summed from the
// ReplicaSets, the Available condition, and the Progressing condition that `kubectl rollout
// status` reads (NewReplicaSetAvailable when done, ProgressDeadlineExceeded when stuck).
import { isDeepStrictEqual } from "node:util";
import { parseStamp } from "../core/clock.js";
import type { ReplicaSet } from "../core/objects.js";
import {
  condition,
  type DeploymentView,
  type DeployStatus,
  type DSync,
  fresh,
  hasProgressDeadline,
  maxUnavailable,
  progressing,
  putCondition,
  replicasOf,
  sumSpec,
  sumStatus,
} from "./deployment-util.js";
import { type Condition, omitZero, setCondition } from "./workload-status.js";

function calculateStatus(
  s: DSync,
  newRS: ReplicaSet | undefined,
): DeployStatus & { conditions: Condition[] } {
  const { d } = s;
  const all = s.rsList;
  const available = sumStatus(all, "availableReplicas");
  const st: DeployStatus = omitZero({
    observedGeneration: d.metadata.generation,
    replicas: sumStatus(all, "replicas"),
    updatedReplicas: fresh(s, newRS)?.status?.replicas ?? 0,
    readyReplicas: sumStatus(all, "readyReplicas"),
    availableReplicas: available,
    // more available than wanted (while scaling down) is not negative unavailability
    unavailableReplicas: Math.max(0, sumSpec(all) - available),
    collisionCount: d.status?.collisionCount,
  });
  if (d.status?.collisionCount !== undefined) st.collisionCount = d.status.collisionCount;
  let conds: Condition[] = [...(d.status?.conditions ?? [])];
  conds =
    available >= replicasOf(d) - maxUnavailable(d)
      ? setCondition(
          conds,
          condition(
            s,
            "Available",
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
          ),
        )
      : setCondition(
          conds,
          condition(
            s,
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
          ),
        );
  return { ...st, conditions: conds };
}

/** Every replica updated and available, none old, and the latest spec observed (DeploymentComplete). */
export function deploymentComplete(d: DeploymentView, st: DeployStatus | undefined): boolean {
  const n = replicasOf(d);
  return (
    (st?.updatedReplicas ?? 0) === n &&
    (st?.replicas ?? 0) === n &&
    (st?.availableReplicas ?? 0) === n &&
    (st?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** More new pods, fewer old ones, or more ready/available than last time (DeploymentProgressing). */
function madeProgress(old: DeployStatus | undefined, st: DeployStatus): boolean {
  const n = (
    x: DeployStatus | undefined,
    f: "replicas" | "updatedReplicas" | "readyReplicas" | "availableReplicas",
  ) => x?.[f] ?? 0;
  return (
    n(st, "updatedReplicas") > n(old, "updatedReplicas") ||
    n(st, "replicas") - n(st, "updatedReplicas") < n(old, "replicas") - n(old, "updatedReplicas") ||
    n(st, "readyReplicas") > n(old, "readyReplicas") ||
    n(st, "availableReplicas") > n(old, "availableReplicas")
  );
}

function timedOut(s: DSync, st: DeployStatus): boolean {
  const c = progressing(st);
  if (!hasProgressDeadline(s.d) || !c || c.reason === "NewReplicaSetAvailable") return false;
  if (c.reason === "ProgressDeadlineExceeded") return true;
  // conditions carry wall-clock stamps: read them back as cluster time (the clock may run fast)
  return (
    // hasProgressDeadline said progressDeadlineSeconds is a number
    parseStamp(s.ctx.clock, c.lastUpdateTime) + s.d.spec.progressDeadlineSeconds! * 1000 < s.ctx.clock.now()
  );
}

/** Status without progress estimation (scaling, paused, being deleted). */
export function syncDeploymentStatus(s: DSync, newRS: ReplicaSet | undefined): void {
  s.d.status = calculateStatus(s, newRS);
}

/** Status during a rollout, with the Progressing condition (syncRolloutStatus). */
export function syncRolloutStatus(s: DSync, newRS: ReplicaSet | undefined): void {
  const { d } = s;
  const st = calculateStatus(s, newRS);
  const name = fresh(s, newRS)?.metadata.name;
  if (hasProgressDeadline(d)) {
    const cur = progressing(d.status);
    const complete = st.replicas === st.updatedReplicas && cur?.reason === "NewReplicaSetAvailable";
    if (!complete) {
      if (deploymentComplete(d, st)) {
        const msg = name
          ? `ReplicaSet "${name}" has successfully progressed.`
          : "Deployment has successfully progressed.";
        st.conditions = setCondition(
          st.conditions,
          condition(s, "Progressing", "True", "NewReplicaSetAvailable", msg),
        );
      } else if (madeProgress(d.status, st)) {
        // progress refreshes lastUpdateTime even with the same reason: that is what the deadline measures
        const c = condition(
          s,
          "Progressing",
          "True",
          "ReplicaSetUpdated",
          name ? `ReplicaSet "${name}" is progressing.` : "Deployment is progressing.",
        );
        if (cur?.status === "True") c.lastTransitionTime = cur.lastTransitionTime;
        st.conditions = [...st.conditions.filter((x: Condition) => x.type !== "Progressing"), c];
      } else if (timedOut(s, st)) {
        const msg = name
          ? `ReplicaSet "${name}" has timed out progressing.`
          : `Deployment "${d.metadata.name}" has timed out progressing.`;
        st.conditions = setCondition(
          st.conditions,
          condition(s, "Progressing", "False", "ProgressDeadlineExceeded", msg),
        );
      }
    }
  }
  st.conditions = replicaFailure(s, newRS, st.conditions);
  if (isDeepStrictEqual(d.status, st)) requeueStuck(s, st);
  d.status = st;
}

/** A ReplicaSet's ReplicaFailure (the new one's first) is the Deployment's (progress.go getReplicaFailures). */
function replicaFailure(s: DSync, newRS: ReplicaSet | undefined, conds: Condition[]): Condition[] {
  const failed = (rs?: ReplicaSet) => rs?.status?.conditions?.find((c) => c.type === "ReplicaFailure");
  const c = failed(newRS) ?? s.rsList.map(failed).find(Boolean);
  if (!c) return conds.filter((x) => x.type !== "ReplicaFailure");
  // copied as is (the ReplicaSet controller always sets reason and message); a condition's
  // status is True, False or Unknown
  return setCondition(conds, {
    type: "ReplicaFailure",
    status: c.status,
    lastUpdateTime: c.lastTransitionTime,
    lastTransitionTime: c.lastTransitionTime,
    reason: c.reason,
    message: c.message,
  } as Condition);
}

/** Nothing changes while a rollout hangs: look again when the progress deadline passes. */
function requeueStuck(s: DSync, st: DeployStatus): void {
  const c = progressing(st);
  if (
    !hasProgressDeadline(s.d) ||
    !c ||
    deploymentComplete(s.d, st) ||
    c.reason === "ProgressDeadlineExceeded"
  )
    return;
  const after =
    parseStamp(s.ctx.clock, c.lastUpdateTime) + s.d.spec.progressDeadlineSeconds! * 1000 - s.ctx.clock.now();
  // a second more so that the deadline is strictly behind us when we look
  s.requeue.after(s.key, Math.max(0, after) + 1000);
}

/** A paused Deployment reports Progressing Unknown, so the deadline does not count while paused. */
export function checkPausedConditions(s: DSync): void {
  const { d } = s;
  if (!hasProgressDeadline(d)) return;
  const cur = progressing(d.status);
  if (cur?.reason === "ProgressDeadlineExceeded") return;
  const pausedShown = cur?.reason === "DeploymentPaused";
  if (d.spec.paused && !pausedShown)
    putCondition(s, condition(s, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused"));
  else if (!d.spec.paused && pausedShown)
    putCondition(s, condition(s, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed"));
}
