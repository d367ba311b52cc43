// The Deployment controller's bookkeeping, after kube's deployment/util: the per-sync state,
// annotation keys, surge and unavailability bounds, conditions, and scaling one ReplicaSet.

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import type { Deployment, ReplicaSet } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { type Condition, type Requeuer, scaled, setCondition } from "./workload-status.js";

export const HASH_LABEL = "pod-template-hash";
export const REVISION = "deployment.kubernetes.io/revision";
export const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
export const DESIRED = "deployment.kubernetes.io/desired-replicas";
export const MAX = "deployment.kubernetes.io/max-replicas";
const MAX_INT32 = 2147483647;

/** A Deployment's status as the controller computes it (apps/v1 DeploymentStatus; its own Condition). */
export interface DeployStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: Condition[];
}

/** A Deployment as its controller reads it: the status it computes, with its own conditions. */
export interface DeploymentView extends KObject {
  spec: Deployment["spec"];
  status?: DeployStatus;
}

/** One sync of one Deployment: `d` is a working copy whose annotations and status are written once at the end. */
export interface DSync {
  ctx: SimContext;
  key: string;
  d: DeploymentView;
  /** The ReplicaSets the Deployment controls, kept current as they are written. */
  rsList: ReplicaSet[];
  requeue: Requeuer;
}

/** A ReplicaSet's count fields the Deployment sums. */
type CountField = "replicas" | "readyReplicas" | "availableReplicas";

export const replicasOf = (o: { spec?: { replicas?: number } } | undefined): number => o?.spec?.replicas ?? 1;
export const isRolling = (d: DeploymentView) => d.spec?.strategy?.type !== "Recreate";
export const revisionOf = (rs: KObject) =>
  Number.parseInt(rs.metadata.annotations?.[REVISION] ?? "0", 10) || 0;
export const active = (list: (ReplicaSet | undefined)[]) =>
  list.filter((rs): rs is ReplicaSet => Boolean(rs) && replicasOf(rs) > 0);
export const sumSpec = (list: ReplicaSet[]) => list.reduce((n, rs) => n + replicasOf(rs), 0);
export const sumStatus = (list: ReplicaSet[], field: CountField) =>
  list.reduce((n, rs) => n + (rs.status?.[field] ?? 0), 0);
export const byCreation = (a: KObject, b: KObject) =>
  (a.metadata.creationTimestamp ?? "").localeCompare(b.metadata.creationTimestamp ?? "") ||
  a.metadata.name!.localeCompare(b.metadata.name!);

/** maxSurge rounds up, maxUnavailable down; both zero means one may be unavailable (ResolveFenceposts). */
export function fenceposts(d: DeploymentView): [surge: number, unavailable: number] {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  const n = replicasOf(d);
  const surge = scaled(ru.maxSurge ?? 0, n, true);
  let unavailable = scaled(ru.maxUnavailable ?? 0, n, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}
export const maxSurge = (d: DeploymentView) => (isRolling(d) ? fenceposts(d)[0] : 0);
export const maxUnavailable = (d: DeploymentView) =>
  !isRolling(d) || replicasOf(d) === 0 ? 0 : Math.min(fenceposts(d)[1], replicasOf(d));
export const hasProgressDeadline = (d: DeploymentView) =>
  typeof d.spec?.progressDeadlineSeconds === "number" && d.spec.progressDeadlineSeconds !== MAX_INT32;
export const hasHistoryLimit = (d: DeploymentView) =>
  typeof d.spec?.revisionHistoryLimit === "number" && d.spec.revisionHistoryLimit !== MAX_INT32;

export const progressing = (status: DeployStatus | undefined): Condition | undefined =>
  (status?.conditions ?? []).find((c: Condition) => c.type === "Progressing");

export function condition(
  s: DSync,
  type: string,
  status: Condition["status"],
  reason: string,
  message: string,
): Condition {
  const now = s.ctx.registry.now();
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

export function putCondition(s: DSync, c: Condition): void {
  s.d.status = { ...(s.d.status ?? {}), conditions: setCondition(s.d.status?.conditions ?? [], c) };
}

export function replaceRS(s: DSync, rs: ReplicaSet): ReplicaSet {
  const i = s.rsList.findIndex((x) => x.metadata.uid === rs.metadata.uid);
  if (i >= 0) s.rsList[i] = rs;
  else s.rsList.push(rs);
  return rs;
}

/** How many replicas the new ReplicaSet may have now (NewRSNewReplicas). */
export function newRSNewReplicas(d: DeploymentView, all: ReplicaSet[], newRS: ReplicaSet): number {
  const want = replicasOf(d);
  if (!isRolling(d)) return want;
  const maxTotal = want + scaled(d.spec.strategy?.rollingUpdate?.maxSurge ?? 0, want, true);
  const current = sumSpec(all);
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, want - replicasOf(newRS));
}

export function setReplicasAnnotations(rs: KObject, desired: number, max: number): boolean {
  rs.metadata.annotations ??= {};
  const ann: Record<string, string> = rs.metadata.annotations;
  if (ann[DESIRED] === String(desired) && ann[MAX] === String(max)) return false;
  ann[DESIRED] = String(desired);
  ann[MAX] = String(max);
  return true;
}

export const desiredAnnotation = (rs: KObject): number | undefined => {
  const v = rs.metadata.annotations?.[DESIRED];
  return v === undefined || Number.isNaN(Number(v)) ? undefined : Number(v);
};
export const maxAnnotation = (rs: KObject): number | undefined => {
  const v = rs.metadata.annotations?.[MAX];
  return v === undefined || Number.isNaN(Number(v)) ? undefined : Number(v);
};

/** Set a ReplicaSet's size (and its desired/max annotations); returns whether the size changed. */
export function scaleReplicaSet(s: DSync, rs: ReplicaSet, newScale: number, op?: "up" | "down"): boolean {
  const { d, ctx } = s;
  const oldScale = replicasOf(rs);
  const copy = structuredClone(rs);
  const annChanged = setReplicasAnnotations(copy, replicasOf(d), replicasOf(d) + maxSurge(d));
  if (oldScale === newScale && !annChanged) return false;
  copy.spec.replicas = newScale;
  const updated = ctx.registry.update(R("ReplicaSet"), rs.metadata.namespace, rs.metadata.name!, copy, {
    force: true,
  });
  replaceRS(s, updated as ReplicaSet);
  if (oldScale === newScale) return false;
  const verb = op ?? (newScale > oldScale ? "up" : "down");
  ctx.events.record(
    d,
    "Normal",
    "ScalingReplicaSet",
    `Scaled ${verb} replica set ${rs.metadata.name} from ${oldScale} to ${newScale}`,
    { component: "deployment-controller" },
  );
  return true;
}

/** scaleReplicaSetAndRecordEvent: nothing at all when the size is already right. */
export const scaleTo = (s: DSync, rs: ReplicaSet, n: number) =>
  replicasOf(rs) !== n && scaleReplicaSet(s, rs, n);

/** The current version of a ReplicaSet from the sync's list. */
export const fresh = (s: DSync, rs: ReplicaSet | undefined) =>
  rs ? (s.rsList.find((x) => x.metadata.uid === rs.metadata.uid) ?? rs) : undefined;
