// Which namespaces MicroRemed deployed, recorded where an agent does not look: one ConfigMap per
// namespace, named after it, in a namespace of the harness's own (OWNERS_NAMESPACE). An agent's
// identity is confined to its case's namespace, so it can read its own Namespace object (whose
// labels and annotations therefore carry nothing of the harness) but neither list namespaces nor
// read this one. The runner, the single-step commands and the embedded cluster's lived-in history
// read the record; nothing else does.
import type { KubeClient } from "../kube/client.js";
import { ensureNamespaceExists } from "../kube/ensure-namespace.js";

export const OWNERS_NAMESPACE = "microremed-system";

/** The command that lists the namespaces MicroRemed deployed, for messages. */
export const LIST_OWNED = `kubectl get configmaps -n ${OWNERS_NAMESPACE}`;

/** The command that makes `namespace` MicroRemed's, for messages. */
export const ADOPT = (namespace: string, env: string) =>
  `kubectl create namespace ${OWNERS_NAMESPACE}; kubectl create configmap ${namespace} -n ${OWNERS_NAMESPACE} --from-literal=env=${env}`;

export async function isOwned(client: KubeClient, namespace: string): Promise<boolean> {
  return !!(await client.tryGet("v1", "ConfigMap", OWNERS_NAMESPACE, namespace));
}

/** Record `namespace` as MicroRemed's (before anything is deployed into it). */
export async function recordOwned(client: KubeClient, namespace: string, env: string): Promise<void> {
  await ensureNamespaceExists(client, OWNERS_NAMESPACE);
  if (await isOwned(client, namespace)) return;
  await client.create(
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: namespace }, data: { env } },
    OWNERS_NAMESPACE,
  );
}
