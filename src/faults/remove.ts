// Removing the harness's chaos: delete the object and wait until it is gone, clearing a finalizer
// that hangs (IOChaos). The objects live in Chaos Mesh's namespace (namespace.ts); those an
// earlier version left in the target namespace itself are found and removed too.

import { MANAGED_LABEL, MANAGED_VALUE } from "../envs/deploy.js";
import { MicroRemedError } from "../errors.js";
import type { KubeClient } from "../kube/client.js";
import type { Chaos } from "../kube/objects.js";
import type { Clock } from "../kube/time.js";
import { waitFor } from "../kube/wait.js";
import type { Injection } from "./injection.js";
import { CHAOS_KINDS, CHAOS_NAMESPACE, chaosSelector } from "./namespace.js";

/** What Chaos Mesh records of each injected container (status.experiment.containerRecords). */
interface ChaosWithStatus extends Chaos {
  status?: { experiment?: { containerRecords?: { events?: { type?: string; operation?: string }[] }[] } };
}

/** Delete the chaos object; if it lingers past `stuckMs` (cluster), clear its finalizers. */
export async function removeChaos(
  client: KubeClient,
  time: Clock,
  inj: Injection,
  stuckMs = 30_000,
): Promise<{ finalizerCleared: boolean }> {
  if (!inj.chaos) return { finalizerCleared: false };
  const { apiVersion, kind, name } = inj.chaos;
  const ns = inj.chaos.namespace ?? inj.namespace;
  await client.delete(apiVersion, kind, ns, name);
  // Gone, or stuck: Chaos Mesh records a failed Recover when it cannot reach the injected pod
  // (it was replaced), and then the finalizer never goes; no need to wait out the timeout.
  const goneOrStuck = () =>
    client.tryGet<ChaosWithStatus>(apiVersion, kind, ns, name).then((o) => {
      if (!o) return true;
      const records = o.status?.experiment?.containerRecords ?? [];
      return o.metadata.deletionTimestamp &&
        records.some((r) => r.events?.at(-1)?.operation === "Recover" && r.events?.at(-1)?.type === "Failed")
        ? true
        : undefined;
    });
  const gone = () => client.tryGet(apiVersion, kind, ns, name).then((o) => (o ? undefined : true));
  const watch = [{ apiVersion, kind, namespace: ns }];
  let r = await waitFor({ client, time, check: goneOrStuck, watch, timeoutMs: stuckMs, pollMs: 1000 });
  if (r.ok && !(await client.tryGet(apiVersion, kind, ns, name))) return { finalizerCleared: false };
  await client
    .patch(apiVersion, kind, ns, name, { metadata: { finalizers: [] } }, "merge")
    .catch(() => undefined);
  r = await waitFor({ client, time, check: gone, watch, timeoutMs: stuckMs, pollMs: 1000 });
  if (!r.ok)
    throw new MicroRemedError(
      "E_CLUSTER",
      `${kind} ${name} in ${ns} is still there after its finalizers were cleared`,
      `delete it by hand: kubectl -n ${ns} delete ${kind.toLowerCase()} ${name}`,
    );
  return { finalizerCleared: true };
}

/**
 * Every chaos object MicroRemed left aimed at a namespace (an interrupted run): only those it
 * labelled, in Chaos Mesh's namespace and, from earlier versions, in the namespace itself.
 */
export async function removeAllChaos(client: KubeClient, time: Clock, namespace: string): Promise<number> {
  const places: [string, string][] = [
    [CHAOS_NAMESPACE, chaosSelector(namespace)],
    [namespace, `${MANAGED_LABEL}=${MANAGED_VALUE}`],
  ];
  let n = 0;
  for (const kind of CHAOS_KINDS) {
    if (!(await client.serves("chaos-mesh.org/v1alpha1", kind))) continue;
    for (const [ns, selector] of places) {
      const ours = await client.list("chaos-mesh.org/v1alpha1", kind, ns, selector);
      for (const o of ours) {
        await removeChaos(client, time, {
          failure: "",
          namespace,
          target: "",
          chaos: { apiVersion: "chaos-mesh.org/v1alpha1", kind, name: o.metadata.name!, namespace: ns },
        });
        n++;
      }
    }
  }
  return n;
}
