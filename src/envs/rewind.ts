// A Deployment put back to its snapshot in place, as an operator rolls one back, so that it keeps
// its uid and creation time and its ReplicaSets theirs: a Deployment deleted and made again reads
// "created 40 s ago" in a namespace a week old, and tells a model the case began there.
//   1. its spec, labels and annotations are written back: the Deployment controller makes the
//      snapshot's ReplicaSet of that template the new one again and scales the others down
//      (kube's deployment/sync.go getNewReplicaSet finds an existing ReplicaSet by template);
//   2. once those others are at 0, they are deleted: they are what a case added;
//   3. the snapshot's ReplicaSets get their annotations back (the revision the roll-back raised,
//      the change-cause): deployment/util SetNewReplicaSetAnnotations only ever raises a
//      revision, so with the case's ReplicaSets gone the controller leaves it, and copies it to
//      the Deployment's own revision annotation (SetDeploymentRevision), as the snapshot had it.
// Where that cannot be (the Deployment or one of its snapshot ReplicaSets was made again, a new
// uid), reset.ts deletes and re-creates it as before.
import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import type { KObj } from "../kube/objects.js";
import type { Clock } from "../kube/time.js";
import { waitFor } from "../kube/wait.js";
import { content } from "./snapshot.js";

/** What a rewind works with: reset.ts's options. */
interface RewindOptions {
  client: KubeClient;
  time: Clock;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

const REVISION = "deployment.kubernetes.io/revision";

/** Whether the Deployment can be rolled back in place: it and every ReplicaSet of its snapshot are the same objects. */
export function canRewind(was: KObj, live: KObj | undefined, wasRss: KObj[], liveRss: KObj[]): boolean {
  if (!live || live.metadata.uid !== was.metadata.uid || live.metadata.deletionTimestamp) return false;
  const uids = new Set(liveRss.map((r) => r.metadata.uid));
  return wasRss.every((r) => uids.has(r.metadata.uid));
}

/** Write the object's snapshot content over it, again on a conflict (a controller wrote it meanwhile). */
async function writeBack(
  o: RewindOptions,
  ns: string,
  was: KObj,
  apiVersion: string,
  kind: string,
): Promise<void> {
  for (let i = 0; ; i++) {
    const live = await o.client.get(apiVersion, kind, ns, was.metadata.name!);
    const c = content(was) as KObj;
    // a ReplicaSet keeps its spec (replicas are the controller's) and owner: only its annotations go back
    const body =
      kind === "ReplicaSet"
        ? { ...live, metadata: { ...live.metadata, annotations: was.metadata.annotations } }
        : {
            ...c,
            metadata: { ...c.metadata, namespace: ns, resourceVersion: live.metadata.resourceVersion },
          };
    try {
      await o.client.replace(body as KObj, ns);
      return;
    } catch (e) {
      if (i < 4 && (e as { status?: number }).status === 409) continue;
      throw e;
    }
  }
}

/** Roll the Deployment back in place to the snapshot (see the file's head). */
export async function rewindDeployment(
  o: RewindOptions,
  ns: string,
  was: KObj,
  wasRss: KObj[],
): Promise<void> {
  const name = was.metadata.name!;
  await writeBack(o, ns, was, "apps/v1", "Deployment");
  const kept = new Set(wasRss.map((r) => r.metadata.uid));
  const ownRss = async () =>
    (await o.client.list("apps/v1", "ReplicaSet", ns)).filter((r) =>
      r.metadata.ownerReferences?.some((x) => x.controller && x.kind === "Deployment" && x.name === name),
    );
  const scaledDown = await waitFor({
    client: o.client,
    time: o.time,
    signal: o.signal,
    timeoutMs: o.timeoutSeconds * 1000,
    pollMs: 1000,
    watch: [{ apiVersion: "apps/v1", kind: "ReplicaSet", namespace: ns }],
    check: async () => {
      const d = await o.client.get("apps/v1", "Deployment", ns, name);
      const st = d.status as { observedGeneration?: number } | undefined;
      if ((st?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) return undefined;
      const extra = (await ownRss()).filter((r) => !kept.has(r.metadata.uid));
      const idle = extra.every(
        (r) =>
          (r.spec as { replicas?: number }).replicas === 0 &&
          ((r.status as { replicas?: number } | undefined)?.replicas ?? 0) === 0,
      );
      return idle ? extra : undefined;
    },
  });
  if (!scaledDown.ok)
    throw new MicroRemedError(
      "E_CLUSTER",
      `Deployment ${name} in ${ns}, rolled back to its state after deploy, still ran pods of a later template after ${o.timeoutSeconds} s`,
      `look at it with kubectl -n ${ns} rollout status deployment/${name} and kubectl -n ${ns} get rs`,
      { reason: "cluster" },
    );
  for (const rs of scaledDown.value)
    await o.client.delete("apps/v1", "ReplicaSet", ns, rs.metadata.name!, {
      propagationPolicy: "Background",
    });
  for (const rs of wasRss) await writeBack(o, ns, rs, "apps/v1", "ReplicaSet");
  // the controller copies the current ReplicaSet's revision to the Deployment at its next sync
  const want = was.metadata.annotations?.[REVISION];
  const synced = await waitFor({
    client: o.client,
    time: o.time,
    signal: o.signal,
    timeoutMs: o.timeoutSeconds * 1000,
    pollMs: 500,
    check: async () =>
      (await o.client.get("apps/v1", "Deployment", ns, name)).metadata.annotations?.[REVISION] === want
        ? true
        : undefined,
  });
  if (!synced.ok) await writeBack(o, ns, was, "apps/v1", "Deployment");
}
