// ControllerRevisions: the pod-template history of StatefulSets and DaemonSets, as kube's
// controller_history does it. Each revision holds `{"spec":{"template":{..., "$patch":"replace"}}}`
// so `kubectl rollout undo` can apply it back as a strategic merge patch, and a number that
// `kubectl rollout history` lists.
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { ownerRef } from "../core/meta.js";
import type { ControllerRevision, PodTemplate } from "../core/objects.js";
import { canonical, claim, computeHash, type Selecting } from "./workload-util.js";

const CR = () => R("ControllerRevision");

/** What keeps revisions: a StatefulSet or a DaemonSet (only a StatefulSet reports currentRevision). */
export interface RevisionOwner extends Selecting {
  spec: Selecting["spec"] & { template?: PodTemplate; revisionHistoryLimit?: number };
  status?: { collisionCount?: number; currentRevision?: string };
}

/** What a ControllerRevision stores: a patch that replaces the owner's pod template. */
export interface RevisionData {
  spec: { template: PodTemplate & { $patch: "replace" } };
}

/** What a revision of `owner` stores: its pod template, to replace the live one on undo. */
export function revisionData(owner: RevisionOwner): RevisionData {
  return { spec: { template: { ...structuredClone(owner.spec?.template ?? {}), $patch: "replace" } } };
}

/** The pod template a revision stores. */
export function templateOf(cr: ControllerRevision): PodTemplate {
  // data is open JSON; the controllers write RevisionData, and a revision without it has no template
  const data = cr.data as Partial<RevisionData> | undefined;
  const { $patch: _p, ...template } = data?.spec?.template ?? {};
  return template;
}

const sameData = (cr: ControllerRevision, data: RevisionData) =>
  isDeepStrictEqual(canonical(cr.data), canonical(data));

/** The owner's revisions (adopting orphans its selector matches), oldest revision first. */
export function listRevisions(ctx: SimContext, owner: RevisionOwner): ControllerRevision[] {
  const all = ctx.store.list(CR(), owner.metadata.namespace) as ControllerRevision[];
  return claim(ctx, CR(), owner, all).sort(
    (a, b) => (a.revision ?? 0) - (b.revision ?? 0) || a.metadata.name!.localeCompare(b.metadata.name!),
  );
}

export interface Revisions {
  current: ControllerRevision;
  update: ControllerRevision;
  collisionCount: number;
  revisions: ControllerRevision[];
}

/**
 * The revision of the owner's live template (created, or renumbered to the newest when an old
 * one comes back) and the revision its pods are currently at (getStatefulSetRevisions).
 * `hashLabel` is where the revision's hash goes: StatefulSets use controller.kubernetes.io/hash,
 * DaemonSets controller-revision-hash.
 */
export function syncRevisions(
  ctx: SimContext,
  owner: RevisionOwner,
  revisions: ControllerRevision[],
  hashLabel: string,
): Revisions {
  const ns = owner.metadata.namespace;
  let collisionCount = owner.status?.collisionCount ?? 0;
  const data = revisionData(owner);
  const last = revisions[revisions.length - 1];
  const next = (last?.revision ?? 0) + 1;
  const equal = revisions.filter((cr) => sameData(cr, data));
  let update: ControllerRevision | undefined;
  if (equal.length && equal[equal.length - 1] === last) update = last;
  else if (equal.length) {
    const eq = equal[equal.length - 1];
    update = ctx.registry.update(
      CR(),
      ns,
      eq.metadata.name!,
      { ...eq, revision: next },
      { force: true },
    ) as ControllerRevision;
  } else {
    while (!update) {
      const hash = computeHash(data, collisionCount);
      const name = `${owner.metadata.name!.slice(0, 223)}-${hash}`;
      const clash = ctx.registry.tryGet(CR(), ns, name) as ControllerRevision | undefined;
      if (clash && sameData(clash, data)) update = clash;
      else if (clash) collisionCount++;
      else
        update = ctx.registry.create(CR(), ns, {
          apiVersion: "apps/v1",
          kind: "ControllerRevision",
          metadata: {
            name,
            labels: { ...(owner.spec?.template?.metadata?.labels ?? {}), [hashLabel]: hash },
            // kube copies the owner's annotations, kubernetes.io/change-cause among them
            ...(owner.metadata.annotations ? { annotations: { ...owner.metadata.annotations } } : {}),
            ownerReferences: [ownerRef(owner)],
          },
          data,
          revision: next,
        }) as ControllerRevision;
    }
  }
  const list = [...revisions.filter((cr) => cr.metadata.name !== update!.metadata.name), update];
  const current = list.find((cr) => cr.metadata.name === owner.status?.currentRevision) ?? update;
  return { current, update, collisionCount, revisions: list };
}

/** Delete the oldest revisions no pod and no status refers to, beyond revisionHistoryLimit. */
export function truncateHistory(
  ctx: SimContext,
  owner: RevisionOwner,
  revisions: ControllerRevision[],
  live: ReadonlySet<string | undefined>,
): void {
  const limit = owner.spec?.revisionHistoryLimit ?? 10;
  const historic = revisions
    .filter((cr) => !live.has(cr.metadata.name!))
    .sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
  for (const cr of historic.slice(0, Math.max(0, historic.length - limit)))
    ctx.registry.delete(CR(), cr.metadata.namespace, cr.metadata.name!);
}
