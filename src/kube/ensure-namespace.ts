// A namespace made if it is not there, as `kubectl create namespace` would, safe against a
// parallel worker making it between the look and the create.
import type { KubeClient } from "./client.js";

export async function ensureNamespaceExists(client: KubeClient, name: string): Promise<void> {
  if (await client.tryGet("v1", "Namespace", undefined, name)) return;
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } }).catch(async (e) => {
    if (!(await client.tryGet("v1", "Namespace", undefined, name))) throw e;
  });
}
