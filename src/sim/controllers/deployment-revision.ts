// The Deployment's new ReplicaSet and revisions, after kube's sync.go getNewReplicaSet: the
// ReplicaSet whose template is the Deployment's (pod-template-hash ignored) is found or created
// as `<name>-<hash>`; it gets the next revision (a reused old one keeps a revision-history) and
// the Deployment's annotations, and the Deployment takes its revision.

import { R } from "../api/resources.js";
import { ApiError } from "../api/status.js";
import { controllerOf, ownerRef } from "../core/meta.js";
import type { ReplicaSet } from "../core/objects.js";
import {
  byCreation,
  condition,
  DESIRED,
  type DeploymentView,
  type DSync,
  HASH_LABEL,
  hasProgressDeadline,
  MAX,
  maxSurge,
  newRSNewReplicas,
  progressing,
  putCondition,
  REVISION,
  REVISION_HISTORY,
  replaceRS,
  replicasOf,
  revisionOf,
  setReplicasAnnotations,
} from "./deployment-util.js";
import { computeHash, templatesEqual } from "./workload-util.js";

/** Deployment annotations that are not copied onto its ReplicaSets. */
const SKIP = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION,
  REVISION_HISTORY,
  DESIRED,
  MAX,
  "deprecated.deployment.rollback.to",
]);

/** The ReplicaSet whose template is the Deployment's (oldest first, as kube picks). */
export function findNewReplicaSet(d: DeploymentView, list: ReplicaSet[]): ReplicaSet | undefined {
  return [...list]
    .sort(byCreation)
    .find((rs) => templatesEqual(rs.spec?.template, d.spec.template, HASH_LABEL));
}

/** Copy the Deployment's annotations, give the ReplicaSet the next revision (keeping the history of a reused one). */
function setNewRSAnnotations(
  d: DeploymentView,
  rs: ReplicaSet,
  newRevision: number,
  exists: boolean,
): boolean {
  let changed = false;
  rs.metadata.annotations ??= {};
  const ann: Record<string, string> = rs.metadata.annotations;
  for (const [k, v] of Object.entries<string>(d.metadata.annotations ?? {})) {
    if (SKIP.has(k) || ann[k] === v) continue;
    ann[k] = v;
    changed = true;
  }
  const old = ann[REVISION];
  const oldInt = old === undefined ? 0 : Number.parseInt(old, 10);
  if (Number.isNaN(oldInt)) return changed;
  if (oldInt < newRevision) {
    ann[REVISION] = String(newRevision);
    changed = true;
    // a rollback re-uses this ReplicaSet: remember the revisions it served before
    if (old !== undefined) {
      const history = ann[REVISION_HISTORY] ? ann[REVISION_HISTORY].split(",") : [];
      history.push(old);
      while (history.join(",").length > 2000) history.shift(); // kube caps it at 2000 characters
      ann[REVISION_HISTORY] = history.join(",");
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/**
 * The new ReplicaSet (created when `create` and missing) and all the others, with revisions in
 * sync (getAllReplicaSetsAndSyncRevision). Undefined newRS with `create` means a hash collision.
 */
export function getReplicaSets(s: DSync, create: boolean): { newRS?: ReplicaSet; oldRSs: ReplicaSet[] } {
  const { d, ctx } = s;
  const existing = findNewReplicaSet(d, s.rsList);
  const olds = s.rsList.filter((rs) => rs !== existing);
  const newRevision = Math.max(0, ...olds.map(revisionOf)) + 1;
  let newRS: ReplicaSet | undefined;
  if (existing) {
    const copy = structuredClone(existing);
    const changed = setNewRSAnnotations(d, copy, newRevision, true);
    const mrs = d.spec.minReadySeconds ?? 0;
    newRS = existing;
    if (changed || (copy.spec.minReadySeconds ?? 0) !== mrs) {
      if (mrs) copy.spec.minReadySeconds = mrs;
      else delete copy.spec.minReadySeconds;
      const updated = ctx.registry.update(
        R("ReplicaSet"),
        copy.metadata.namespace,
        copy.metadata.name!,
        copy,
        {
          force: true,
        },
      );
      newRS = replaceRS(s, updated as ReplicaSet);
    }
    setRevision(d, newRS.metadata.annotations?.[REVISION]);
    if (hasProgressDeadline(d) && !progressing(d.status))
      putCondition(
        s,
        condition(
          s,
          "Progressing",
          "True",
          "FoundNewReplicaSet",
          `Found new replica set "${newRS.metadata.name}"`,
        ),
      );
  } else if (create) {
    newRS = createNewReplicaSet(s, olds, newRevision);
  }
  return { newRS, oldRSs: s.rsList.filter((rs) => rs.metadata.uid !== newRS?.metadata.uid) };
}

function createNewReplicaSet(s: DSync, olds: ReplicaSet[], newRevision: number): ReplicaSet | undefined {
  const { d, ctx } = s;
  const ns = d.metadata.namespace;
  const hash = computeHash(d.spec.template, d.status?.collisionCount);
  const template = structuredClone(d.spec.template);
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash },
  };
  const sel = d.spec.selector ?? {};
  const rs: ReplicaSet = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: ns,
      labels: { ...template.metadata.labels },
      ownerReferences: [ownerRef(d)],
    },
    spec: {
      replicas: 0,
      selector: { ...sel, matchLabels: { ...(sel.matchLabels ?? {}), [HASH_LABEL]: hash } },
      template,
    },
  };
  if (d.spec.minReadySeconds) rs.spec.minReadySeconds = d.spec.minReadySeconds;
  rs.spec.replicas = newRSNewReplicas(d, [...olds, rs], rs);
  setNewRSAnnotations(d, rs, newRevision, false);

  let created: ReplicaSet;
  let alreadyExisted = false;
  const clash = ctx.registry.tryGet(R("ReplicaSet"), ns, rs.metadata.name!) as ReplicaSet | undefined;
  if (clash) {
    if (
      controllerOf(clash)?.uid !== d.metadata.uid ||
      !templatesEqual(clash.spec?.template, d.spec.template, HASH_LABEL)
    ) {
      // a different template hashed to the same name: try the next hash on the next sync
      s.d.status = { ...(s.d.status ?? {}), collisionCount: (s.d.status?.collisionCount ?? 0) + 1 };
      s.requeue.after(s.key, 0);
      return undefined;
    }
    created = clash;
    alreadyExisted = true;
  } else {
    try {
      created = ctx.registry.create(R("ReplicaSet"), ns, rs) as ReplicaSet;
    } catch (e) {
      if (e instanceof ApiError && e.code === 403) return undefined; // the namespace is terminating
      throw e;
    }
  }
  replaceRS(s, created);
  if (!alreadyExisted && replicasOf(created) > 0)
    ctx.events.record(
      d,
      "Normal",
      "ScalingReplicaSet",
      `Scaled up replica set ${created.metadata.name} from 0 to ${replicasOf(created)}`,
      { component: "deployment-controller" },
    );
  setRevision(d, String(newRevision));
  if (!alreadyExisted && hasProgressDeadline(d))
    putCondition(
      s,
      condition(
        s,
        "Progressing",
        "True",
        "NewReplicaSetCreated",
        `Created new replica set "${created.metadata.name}"`,
      ),
    );
  return created;
}

function setRevision(d: DeploymentView, revision: string | undefined) {
  if (revision === undefined) return;
  d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [REVISION]: revision };
}
