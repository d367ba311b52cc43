// Making the planned noise (plan.ts) through the API, as ordinary objects and actions anyone
// in the namespace could make: a pod deleted (its Deployment replaces it), an Event of type
// Warning as the kubelet writes them, an annotation on a ConfigMap, a few seconds of CPU work
// in a container. Nothing is labelled or named as the harness's: noise must not be told from an
// incident by its look. Then the namespace is waited on until every workload is Ready again.

import type { KubeClient } from "../cluster/client.js";
import { execIn } from "../cluster/exec.js";
import type { KObj, Pod } from "../cluster/objects.js";
import type { Clock } from "../cluster/time.js";
import { Rng } from "../util/rng.js";
import type { NoiseEvent } from "./plan.js";

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

/** Each event made in turn; returns the events as made (an event with nothing to act on is left out). */
export async function makeNoise(s: NoiseScope, events: NoiseEvent[], caseKey: string): Promise<NoiseEvent[]> {
  const rng = new Rng(`${s.seed}:${caseKey}:noise-names`);
  const made: NoiseEvent[] = [];
  for (const e of events) {
    const now = new Date(await s.time.clusterNow()).toISOString();
    if (e.kind === "configmap-edit") {
      const value = e.detail.split("=")[1] ?? "";
      await s.client.patch(
        "v1",
        "ConfigMap",
        s.namespace,
        e.target,
        { metadata: { annotations: { "reviewed-at": value } } },
        "merge",
      );
      made.push(e);
      continue;
    }
    const pod = await podOf(s, e.target);
    if (!pod) continue;
    if (e.kind === "pod-restart") await s.client.delete("v1", "Pod", s.namespace, pod.metadata.name!);
    else if (e.kind === "warning-event") await warn(s, e, pod, now, rng);
    else {
      const seconds = e.detail.split(" ")[0];
      const container = pod.spec?.containers?.[0]?.name ?? e.target;
      await execIn(s.client, s.namespace, pod.metadata.name!, container, [
        "sh",
        "-c",
        `end=$(( $(date +%s) + ${seconds} )); while [ $(date +%s) -lt $end ]; do :; done`,
      ]);
    }
    made.push(e);
  }
  return made;
}
