// StatefulSet pods: stable identity (`<set>-<ordinal>`, hostname and subdomain, the pod-name,
// pod-index and controller-revision-hash labels), their PersistentVolumeClaims from
// volumeClaimTemplates, and the status counts kube computes over them.

import { R } from "../api/resources.js";
import { ApiError } from "../api/status.js";
import type { SimContext } from "../context/context.js";
import type { Clock } from "../core/clock.js";
import type { Pod, PodTemplate, StatefulSet, StatefulSetStatus, Volume } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { omitZero } from "./workload-status.js";
import { isTerminating, podFromTemplate, podReady, untilAvailable } from "./workload-util.js";

export const REVISION_LABEL = "controller-revision-hash";
const SOURCE = { component: "statefulset-controller" };

/** The ordinal of a pod of `set` by name, or -1 when the name is not `<set>-<n>`. */
export function ordinalOf(setName: string, pod: KObject): number {
  const m = /^(.*)-(\d+)$/.exec(pod.metadata.name ?? "");
  return m && m[1] === setName ? Number(m[2]) : -1;
}

export const runningAndReady = (p: Pod) => p.status?.phase === "Running" && podReady(p);
export const runningAndAvailable = (p: Pod, minReady: number, now: number, clock: Clock) =>
  runningAndReady(p) && untilAvailable(p, minReady, now, clock) === 0;
export const revisionOfPod = (p: KObject) => p.metadata.labels?.[REVISION_LABEL];

const claimName = (set: StatefulSet, template: string | undefined, ordinal: number) =>
  `${template}-${set.metadata.name}-${ordinal}`;

/** The pod for `ordinal` from `template` at `revision`, with its identity and claims. */
export function statefulPod(
  set: StatefulSet,
  template: PodTemplate | undefined,
  revision: string,
  ordinal: number,
): Pod {
  const name = `${set.metadata.name}-${ordinal}`;
  const pod = podFromTemplate(set, template, name);
  pod.metadata.labels = {
    ...pod.metadata.labels,
    [REVISION_LABEL]: revision,
    "statefulset.kubernetes.io/pod-name": name,
    "apps.kubernetes.io/pod-index": String(ordinal),
  };
  pod.spec.hostname = name;
  if (set.spec?.serviceName) pod.spec.subdomain = set.spec.serviceName;
  const volumes: Volume[] = (pod.spec.volumes ?? []).filter(
    (v) => !(set.spec?.volumeClaimTemplates ?? []).some((t) => t.metadata?.name === v.name),
  );
  // nothing validates a claim template's name: without metadata this sync fails, without a name
  // the volume is unnamed
  for (const t of set.spec?.volumeClaimTemplates ?? [])
    volumes.push({
      name: t.metadata!.name as string,
      persistentVolumeClaim: { claimName: claimName(set, t.metadata!.name, ordinal) },
    });
  if (volumes.length) pod.spec.volumes = volumes;
  return pod;
}

/**
 * Create the claims a pod needs. There is no storage provisioner here, so a claim is Bound as
 * soon as it exists (k3s' local-path would bind it when the pod is scheduled).
 */
export function createClaims(ctx: SimContext, set: StatefulSet, ordinal: number): void {
  const ns = set.metadata.namespace;
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const name = claimName(set, t.metadata!.name, ordinal);
    if (ctx.registry.tryGet(R("PersistentVolumeClaim"), ns, name)) continue;
    const spec = { volumeMode: "Filesystem", ...structuredClone(t.spec ?? {}) };
    ctx.registry.create(R("PersistentVolumeClaim"), ns, {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name,
        labels: { ...(set.spec?.selector?.matchLabels ?? {}), ...(t.metadata?.labels ?? {}) },
      },
      spec,
      status: {
        phase: "Bound",
        accessModes: spec.accessModes ?? ["ReadWriteOnce"],
        capacity: { storage: spec.resources?.requests?.storage ?? "1Gi" },
      },
    });
    ctx.events.record(
      set,
      "Normal",
      "SuccessfulCreate",
      `create Claim ${name} Pod ${set.metadata.name}-${ordinal} in StatefulSet ${set.metadata.name} success`,
      SOURCE,
    );
  }
}

export function createPod(ctx: SimContext, set: StatefulSet, pod: Pod, ordinal: number): Pod {
  createClaims(ctx, set, ordinal);
  let created: Pod;
  try {
    created = ctx.registry.create(R("Pod"), set.metadata.namespace, pod) as Pod;
  } catch (e) {
    // refused by admission: stateful_set_control.go records it and the sync is retried
    if (e instanceof ApiError && e.code !== 409)
      ctx.events.record(
        set,
        "Warning",
        "FailedCreate",
        `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${e.message}`,
        SOURCE,
      );
    throw e;
  }
  ctx.events.record(
    set,
    "Normal",
    "SuccessfulCreate",
    `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
    SOURCE,
  );
  return created;
}

export function deletePod(ctx: SimContext, set: KObject, pod: KObject): void {
  ctx.registry.delete(R("Pod"), pod.metadata.namespace, pod.metadata.name!);
  ctx.events.record(
    set,
    "Normal",
    "SuccessfulDelete",
    `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`,
    SOURCE,
  );
}

/** Status over the set's pods (computeReplicaStatus), the rollout finished when all are updated and ready. */
export function statefulSetStatus(
  set: StatefulSet,
  pods: Pod[],
  current: string,
  update: string,
  collisionCount: number,
  clock: Clock,
): StatefulSetStatus {
  const now = clock.now();
  const minReady = set.spec?.minReadySeconds ?? 0;
  let replicas = 0;
  let ready = 0;
  let available = 0;
  let currentReplicas = 0;
  let updated = 0;
  for (const p of pods) {
    replicas++;
    if (runningAndReady(p)) {
      ready++;
      if (runningAndAvailable(p, minReady, now, clock)) available++;
    }
    if (isTerminating(p)) continue;
    if (revisionOfPod(p) === current) currentReplicas++;
    if (revisionOfPod(p) === update) updated++;
  }
  let currentRevision = current;
  if (set.spec?.updateStrategy?.type !== "OnDelete" && updated === replicas && ready === replicas) {
    currentReplicas = updated;
    currentRevision = update;
  }
  return omitZero(
    {
      observedGeneration: set.metadata.generation,
      replicas,
      readyReplicas: ready,
      currentReplicas,
      updatedReplicas: updated,
      currentRevision,
      updateRevision: update,
      collisionCount,
      availableReplicas: available,
    },
    ["replicas", "collisionCount", "availableReplicas"],
  );
}
