// Putting a namespace back to its snapshot (snapshot.ts), through the API, the same on the
// embedded cluster as on k3s, so that every case starts from the same state whatever the cases
// before it did or the agent wrote:
//   - an object the snapshot lacks (of no owner) is deleted;
//   - a changed Service, ConfigMap, Secret, ServiceAccount or NetworkPolicy is written back;
//   - a changed Deployment whose ReplicaSets of the snapshot are all still there is rolled back
//     in place (rewind.ts), keeping its age; any other changed workload (a new generation, new
//     annotations such as a change-cause, a ReplicaSet more or less) is deleted with its
//     ReplicaSets and pods and created again as it was, its
//     ReplicaSets first: the Deployment controller adopts ReplicaSets of no owner that its
//     selector matches (kube's ClaimReplicaSets) and finds its current one by template, so
//     `kubectl rollout history` shows the revisions and change-causes of the snapshot and
//     nothing a case added; any object whose uid changed (deleted, made again) is re-created;
//   - a pod whose containers restarted since is replaced by its controller;
//   - once every workload is Ready again and no pod is terminating, every event the snapshot did
//     not have is deleted (the previous case's, and those of the reset itself).
// Names of pods and times are new: the API server sets creationTimestamp and uid on create.

import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import type { KObj } from "../kube/objects.js";
import type { Clock } from "../kube/time.js";
import { waitFor } from "../kube/wait.js";
import { waitHealthy } from "./deploy.js";
import { canRewind, rewindDeployment } from "./rewind.js";
import {
  content,
  keyOf,
  markNamespace,
  type NamespaceSnapshot,
  readNamespace,
  restartsOf,
  signature,
  TRACKED,
} from "./snapshot.js";

export interface ResetOptions {
  client: KubeClient;
  time: Clock;
  /** Cluster seconds a workload may take to be Ready again, and its pods to go. */
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** What the reset did: objects written back, re-created, deleted; pods replaced; events deleted. */
export interface ResetSummary {
  replaced: string[];
  recreated: string[];
  deleted: string[];
  pods: string[];
  events: number;
}

const trackedOf = (kind: string) => TRACKED.find((t) => t.kind === kind)!;

/** An object as it can be created again: what it says, in the namespace. */
function fresh(o: KObj): KObj {
  const c = content(o) as KObj;
  return { ...c, metadata: { ...c.metadata, namespace: o.metadata.namespace } };
}

/** Put the namespace back to the snapshot; returns what it changed. */
export async function resetNamespace(snap: NamespaceSnapshot, o: ResetOptions): Promise<ResetSummary> {
  const { client } = o;
  const ns = snap.namespace;
  const out: ResetSummary = { replaced: [], recreated: [], deleted: [], pods: [], events: 0 };
  const now = await readNamespace(client, ns);

  for (const [key, live] of now.objects)
    if (!snap.objects.has(key)) {
      const t = trackedOf(live.kind);
      await client.delete(t.apiVersion, t.kind, ns, live.metadata.name!, { propagationPolicy: "Background" });
      out.deleted.push(key);
    }

  const recreate: KObj[] = [];
  const rewound: string[] = [];
  for (const [key, was] of snap.objects) {
    const live = now.objects.get(key);
    if (live && signature(live, now.history.get(key)) === snap.marks.get(key)) continue;
    if (live && live.metadata.uid === was.metadata.uid && trackedOf(was.kind).how === "replace") {
      await client.replace(
        {
          ...fresh(was),
          metadata: { ...fresh(was).metadata, resourceVersion: live.metadata.resourceVersion },
        },
        ns,
      );
      out.replaced.push(key);
      continue;
    }
    // a Deployment rolls back in place where it and its ReplicaSets are the same objects: it keeps
    // its age (rewind.ts)
    if (
      was.kind === "Deployment" &&
      canRewind(was, live, snap.history.get(key) ?? [], now.history.get(key) ?? [])
    ) {
      await rewindDeployment(o, ns, was, snap.history.get(key) ?? []);
      out.replaced.push(key);
      rewound.push(was.metadata.name!);
      continue;
    }
    recreate.push(was);
  }
  for (const was of recreate) await recreateObject(snap, was, o);
  out.recreated.push(...recreate.map(keyOf));

  // pods of workloads left alone whose containers restarted since: their controllers replace them
  const gone = new Set([...recreate.map((w) => w.metadata.name), ...rewound]);
  for (const p of now.pods) {
    const owner = p.metadata.ownerReferences?.find((r) => r.controller);
    const before = snap.restarts.get(p.metadata.name!);
    if (!owner || p.metadata.deletionTimestamp || gone.has(ownerName(owner.name, now.history))) continue;
    if (before === undefined ? restartsOf(p) > 0 : restartsOf(p) > before) {
      await client.delete("v1", "Pod", ns, p.metadata.name!);
      out.pods.push(p.metadata.name!);
    }
  }

  if (out.recreated.length || rewound.length || out.pods.length || out.deleted.length)
    await waitHealthy(client, o.time, ns, o.timeoutSeconds, o.signal);
  await untilNoneTerminating(ns, o);
  out.events = await dropEvents(snap, o);
  Object.assign(snap, await markNamespace(client, ns));
  return out;
}

/** The Deployment a ReplicaSet belongs to, or the owner's own name. */
function ownerName(name: string, history: Map<string, KObj[]>): string {
  for (const [key, rss] of history)
    if (rss.some((r) => r.metadata.name === name)) return key.slice("Deployment/".length);
  return name;
}

/** Delete the object (its dependents with it), wait until it and they are gone, then create it as it was. */
async function recreateObject(snap: NamespaceSnapshot, was: KObj, o: ResetOptions): Promise<void> {
  const { client } = o;
  const ns = snap.namespace;
  const t = trackedOf(was.kind);
  const name = was.metadata.name!;
  const rss = snap.history.get(keyOf(was)) ?? [];
  await client.delete(t.apiVersion, t.kind, ns, name, { propagationPolicy: "Background" });
  const selector = (was.spec as { selector?: { matchLabels?: Record<string, string> } } | undefined)?.selector
    ?.matchLabels;
  const labelSelector = selector
    ? Object.entries(selector)
        .map(([k, v]) => `${k}=${v}`)
        .join(",")
    : undefined;
  const r = await waitFor({
    client,
    time: o.time,
    signal: o.signal,
    timeoutMs: o.timeoutSeconds * 1000,
    pollMs: 1000,
    watch: [{ apiVersion: "v1", kind: "Pod", namespace: ns }],
    check: async () => {
      if (await client.tryGet(t.apiVersion, t.kind, ns, name)) return undefined;
      for (const rs of rss)
        if (await client.tryGet("apps/v1", "ReplicaSet", ns, rs.metadata.name!)) return undefined;
      if (labelSelector && (await client.list("v1", "Pod", ns, labelSelector)).length) return undefined;
      return true;
    },
  });
  if (!r.ok)
    throw new MicroRemedError(
      "E_CLUSTER",
      `${was.kind} ${name} in ${ns}, deleted to put it back as it was after deploy, was still there (or its pods) after ${o.timeoutSeconds} s`,
      `look at it with kubectl -n ${ns} get ${was.kind.toLowerCase()},rs,pods; a finalizer may hold it`,
      { reason: "cluster" },
    );
  // the ReplicaSets first, of no owner: the Deployment adopts them and finds its current one among them
  for (const rs of rss) await client.create(fresh(rs), ns);
  await client.create(fresh(was), ns);
}

/** Wait until no pod of the namespace is terminating: the kubelet writes its last events until then. */
async function untilNoneTerminating(ns: string, o: ResetOptions): Promise<void> {
  await waitFor({
    client: o.client,
    time: o.time,
    signal: o.signal,
    timeoutMs: o.timeoutSeconds * 1000,
    pollMs: 1000,
    watch: [{ apiVersion: "v1", kind: "Pod", namespace: ns }],
    check: async () =>
      (await o.client.list("v1", "Pod", ns)).some((p) => p.metadata.deletionTimestamp) ? undefined : true,
  });
}

/** Delete every event the snapshot did not have, a few at a time; returns how many. */
async function dropEvents(snap: NamespaceSnapshot, o: ResetOptions): Promise<number> {
  const newer = (await o.client.list("v1", "Event", snap.namespace)).filter(
    (e) => !snap.events.has(e.metadata.uid!),
  );
  const queue = [...newer];
  const worker = async () => {
    for (let e = queue.shift(); e; e = queue.shift())
      await o.client.delete("v1", "Event", snap.namespace, e.metadata.name!);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return newer.length;
}
