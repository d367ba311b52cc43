// Making the planned noise (plan.ts) through the API, as ordinary objects and actions anyone
// in the namespace could make: a pod deleted (its Deployment replaces it), an Event of type
// Warning as the kubelet writes them, an annotation on a ConfigMap, a few seconds of CPU work
// in a container. Nothing is labelled or named as the harness's: noise must not be told from an
// incident by its look. An event is recorded only when it happened: an API call refused, a pod
// gone, a CPU burst whose exec failed (no shell in the image) is left out, and the case goes on.
// The runner then waits for the restarted workloads (src/runner/noise.ts), and undoes the
// ConfigMap edit when the case is restored (undoNoise).

import type { KubeClient } from "../cluster/client.js";
import { execIn } from "../cluster/exec.js";
import type { KObj, Pod } from "../cluster/objects.js";
import type { Clock } from "../cluster/time.js";
import { Rng } from "../util/rng.js";
import { EDIT_ANNOTATION, type NoiseEvent } from "./plan.js";

export interface NoiseScope {
  client: KubeClient;
  time: Clock;
  namespace: string;
  seed: number;
}

async function podOf(s: NoiseScope, app: string): Promise<Pod | undefined> {
  const pods = await s.client.list<Pod>("v1", "Pod", s.namespace, `app=${app}`);
  return pods.find((p) => !p.metadata.deletionTimestamp && p.status?.phase === "Running");
}

async function warn(s: NoiseScope, e: NoiseEvent, pod: Pod, now: string, rng: Rng): Promise<void> {
  const [reason, ...rest] = e.detail.split(": ");
  const event: KObj = {
    apiVersion: "v1",
    kind: "Event",
    // as the kubelet names them: the object's name and a hex suffix
    metadata: { name: `${pod.metadata.name}.${rng.chars(16, "0123456789abcdef")}`, namespace: s.namespace },
    involvedObject: {
      apiVersion: "v1",
      kind: "Pod",
      name: pod.metadata.name,
      namespace: s.namespace,
      uid: pod.metadata.uid,
    },
    reason,
    message: rest.join(": ").replace("{ip}", `${pod.status?.podIP ?? "10.42.0.1"}:8080`),
    type: "Warning",
    source: { component: "kubelet", host: pod.spec?.nodeName },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: "kubelet",
    reportingInstance: pod.spec?.nodeName ?? "",
  } as KObj;
  await s.client.create(event, s.namespace);
}

/** One event made; false when there was nothing to act on or the cluster refused it. */
async function make(s: NoiseScope, e: NoiseEvent, rng: Rng): Promise<boolean> {
  if (e.kind === "configmap-edit") {
    const value = e.detail.split("=")[1] ?? "";
    const patch = { metadata: { annotations: { [EDIT_ANNOTATION]: value } } };
    await s.client.patch("v1", "ConfigMap", s.namespace, e.target, patch, "merge");
    return true;
  }
  const pod = await podOf(s, e.target);
  if (!pod) return false;
  if (e.kind === "pod-restart") {
    await s.client.delete("v1", "Pod", s.namespace, pod.metadata.name!);
    return true;
  }
  if (e.kind === "warning-event") {
    await warn(s, e, pod, new Date(await s.time.clusterNow()).toISOString(), rng);
    return true;
  }
  const seconds = e.detail.split(" ")[0];
  const container = pod.spec?.containers?.[0]?.name ?? e.target;
  const r = await execIn(s.client, s.namespace, pod.metadata.name!, container, [
    "sh",
    "-c",
    // the end computed in two steps: the embedded cluster's sh reads no $(...) inside $((...))
    `now=$(date +%s); end=$((now + ${seconds})); while [ "$(date +%s)" -lt "$end" ]; do :; done`,
  ]);
  return r.exitCode === 0 && !r.message;
}

/** Each event made in turn; returns the events that happened (the others are left out). */
export async function makeNoise(s: NoiseScope, events: NoiseEvent[], caseKey: string): Promise<NoiseEvent[]> {
  const rng = new Rng(`${s.seed}:${caseKey}:noise-names`);
  const made: NoiseEvent[] = [];
  for (const e of events) {
    // noise never decides a case: an event the cluster refused did not happen
    const happened = await make(s, e, rng).catch(() => false);
    if (happened) made.push(e);
  }
  return made;
}

/**
 * The ConfigMap edits undone: the annotation removed (no system's manifest sets it, so this is
 * the object as deployed). Best effort: an edit left in place changes nothing, and the restore
 * must not fail a case for noise.
 */
export async function undoNoise(s: Omit<NoiseScope, "seed" | "time">, events: NoiseEvent[]): Promise<void> {
  const edited = new Set(events.filter((e) => e.kind === "configmap-edit").map((e) => e.target));
  for (const name of edited) {
    const patch = { metadata: { annotations: { [EDIT_ANNOTATION]: null } } };
    await s.client.patch("v1", "ConfigMap", s.namespace, name, patch, "merge").catch(() => undefined);
  }
}
