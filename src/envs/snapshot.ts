// A namespace as it was after deploy, read through the API (so the same code runs on k3s): every
// object a case or an agent can change (workloads with their ReplicaSets, that is their rollout
// history, Services, ConfigMaps, Secrets, ServiceAccounts, NetworkPolicies, Jobs, CronJobs, pods
// of no owner), the restart count of every pod, and which events there were. reset.ts puts a
// namespace back to it. Each object also has a signature (its uid, generation and what it says)
// that tells whether it changed since: the content is kept for re-creating it, the signatures are
// taken again after every reset (a re-created object has a new uid).
import type { KubeClient } from "../kube/client.js";
import type { KObj } from "../kube/objects.js";

/** A kind the snapshot keeps, and how a change of one of its objects is put back. */
export interface TrackedKind {
  apiVersion: string;
  kind: string;
  /** `replace`: written over in place; `recreate`: deleted and created again (workloads, and any object whose uid changed). */
  how: "replace" | "recreate";
}

export const TRACKED: TrackedKind[] = [
  { apiVersion: "apps/v1", kind: "Deployment", how: "recreate" },
  { apiVersion: "apps/v1", kind: "StatefulSet", how: "recreate" },
  { apiVersion: "apps/v1", kind: "DaemonSet", how: "recreate" },
  { apiVersion: "batch/v1", kind: "CronJob", how: "recreate" },
  { apiVersion: "batch/v1", kind: "Job", how: "recreate" },
  { apiVersion: "v1", kind: "Service", how: "replace" },
  { apiVersion: "v1", kind: "ConfigMap", how: "replace" },
  { apiVersion: "v1", kind: "Secret", how: "replace" },
  { apiVersion: "v1", kind: "ServiceAccount", how: "replace" },
  { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", how: "replace" },
  { apiVersion: "v1", kind: "Pod", how: "recreate" },
];

export interface NamespaceSnapshot {
  namespace: string;
  /** "Kind/name" -> the object as it was (objects with an owner are not kept, ReplicaSets aside). */
  objects: Map<string, KObj>;
  /** "Deployment/name" -> its ReplicaSets as they were: its rollout history. */
  history: Map<string, KObj[]>;
  /** "Kind/name" -> its signature now (taken again after each reset). */
  marks: Map<string, string>;
  /** Pod name -> restarts of its containers now (taken again after each reset). */
  restarts: Map<string, number>;
  /** uids of the events there were after deploy. */
  events: Set<string>;
}

export const keyOf = (o: KObj) => `${o.kind}/${o.metadata.name}`;

const ownerOf = (o: KObj) => o.metadata.ownerReferences?.find((r) => r.controller);

/** What an object says, without what the server keeps of it (uid, versions, times, status). */
export function content(o: KObj): Record<string, unknown> {
  const { metadata, status: _status, ...rest } = o;
  return {
    ...rest,
    metadata: {
      name: metadata.name,
      ...(metadata.labels ? { labels: metadata.labels } : {}),
      ...(metadata.annotations ? { annotations: metadata.annotations } : {}),
    },
  };
}

/** Whether an object changed: a new uid, a new spec (generation), new labels or annotations, or new content. */
export function signature(o: KObj, rss: KObj[] = []): string {
  const m = o.metadata;
  const base = { uid: m.uid, generation: m.generation, labels: m.labels, annotations: m.annotations };
  if (o.kind === "Pod") return JSON.stringify({ uid: m.uid });
  if (m.generation !== undefined)
    return JSON.stringify({
      ...base,
      history: rss.map((r) => [
        r.metadata.name,
        r.metadata.uid,
        r.metadata.generation,
        r.metadata.annotations,
      ]),
    });
  return JSON.stringify({ ...base, content: content(o) });
}

/** The restarts of a pod's containers. */
export const restartsOf = (p: KObj) =>
  (
    (p.status as { containerStatuses?: { restartCount?: number }[] } | undefined)?.containerStatuses ?? []
  ).reduce((n, c) => n + (c.restartCount ?? 0), 0);

/** The namespace's tracked objects now: those of no owner, and each Deployment's ReplicaSets. */
export async function readNamespace(
  client: KubeClient,
  namespace: string,
): Promise<{ objects: Map<string, KObj>; history: Map<string, KObj[]>; pods: KObj[] }> {
  const objects = new Map<string, KObj>();
  const history = new Map<string, KObj[]>();
  let pods: KObj[] = [];
  for (const t of TRACKED) {
    const items = await client.list(t.apiVersion, t.kind, namespace);
    if (t.kind === "Pod") pods = items;
    for (const o of items) if (!ownerOf(o)) objects.set(keyOf(o), o);
  }
  const rss = await client.list("apps/v1", "ReplicaSet", namespace);
  for (const rs of rss) {
    const owner = ownerOf(rs);
    if (owner?.kind !== "Deployment") continue;
    const key = `Deployment/${owner.name}`;
    history.set(key, [...(history.get(key) ?? []), rs]);
  }
  for (const list of history.values()) list.sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
  return { objects, history, pods };
}

/** Every object's signature, and every pod's restarts, as the namespace is now. */
export async function markNamespace(
  client: KubeClient,
  namespace: string,
): Promise<Pick<NamespaceSnapshot, "marks" | "restarts">> {
  const now = await readNamespace(client, namespace);
  const marks = new Map<string, string>();
  for (const [k, o] of now.objects) marks.set(k, signature(o, now.history.get(k)));
  return { marks, restarts: new Map(now.pods.map((p) => [p.metadata.name!, restartsOf(p)])) };
}

/** The namespace as it is now: what reset.ts puts it back to. */
export async function takeSnapshot(client: KubeClient, namespace: string): Promise<NamespaceSnapshot> {
  const now = await readNamespace(client, namespace);
  const marks = new Map<string, string>();
  for (const [k, o] of now.objects) marks.set(k, signature(o, now.history.get(k)));
  const events = await client.list("v1", "Event", namespace);
  return {
    namespace,
    objects: now.objects,
    history: now.history,
    marks,
    restarts: new Map(now.pods.map((p) => [p.metadata.name!, restartsOf(p)])),
    events: new Set(events.map((e) => e.metadata.uid!)),
  };
}
