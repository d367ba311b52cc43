// Making the planned noise (plan.ts) through the API, as ordinary objects and actions anyone
// in the namespace could make: a pod deleted (its Deployment replaces it), an Event of type
// Warning as the kubelet would write it for that pod in its state (warnings.ts), stamped a little
// in the past, an annotation on a ConfigMap, a few seconds of CPU work
// in a container. Nothing is labelled or named as the harness's: noise must not be told from an
// incident by its look. An event is recorded only when it happened: an API call refused, a pod
// gone, a CPU burst whose exec failed (no shell in the image) is left out, and the case goes on.
// The runner then waits for the restarted workloads (src/runner/noise.ts), and undoes the
// ConfigMap edit when the case is restored (undoNoise).

import type { KubeClient } from "../kube/client.js";
import { execIn } from "../kube/exec.js";
import type { KObj, Pod } from "../kube/objects.js";
import type { Clock } from "../kube/time.js";
import { Rng } from "../util/rng.js";
import { EDIT_ANNOTATION, type NoiseEvent } from "./plan.js";
import { type WarningReason, warningFor } from "./warnings.js";

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

/** A warning as the kubelet writes it for this pod; the message, or undefined when it would not. */
async function warn(s: NoiseScope, e: NoiseEvent, pod: Pod, rng: Rng): Promise<string | undefined> {
  const reason = e.detail.split(":")[0] as WarningReason;
  const message = warningFor(reason, pod);
  if (!message) return undefined;
  // seen a little while ago, in whole seconds as the API server stamps them
  const at = Math.floor(((await s.time.clusterNow()) - 5_000 - rng.int(35_000)) / 1000) * 1000;
  const stamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
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
      ...(reason === "Unhealthy" ? { fieldPath: `spec.containers{${pod.spec?.containers?.[0]?.name}}` } : {}),
    },
    reason,
    message,
    type: "Warning",
    source: { component: "kubelet", host: pod.spec?.nodeName },
    firstTimestamp: stamp,
    lastTimestamp: stamp,
    count: 1,
    reportingComponent: "kubelet",
    reportingInstance: pod.spec?.nodeName ?? "",
  } as KObj;
  await s.client.create(event, s.namespace);
  return `${reason}: ${message}`;
}

/** One event made (as it was made); undefined when there was nothing to act on or it was refused. */
async function make(s: NoiseScope, e: NoiseEvent, rng: Rng): Promise<NoiseEvent | undefined> {
  const done = await act(s, e, rng);
  return typeof done === "string" ? { ...e, detail: done } : done ? e : undefined;
}

async function act(s: NoiseScope, e: NoiseEvent, rng: Rng): Promise<boolean | string | undefined> {
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
  if (e.kind === "warning-event") return warn(s, e, pod, rng);
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
    const happened = await make(s, e, rng).catch(() => undefined);
    if (happened) made.push(happened);
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
