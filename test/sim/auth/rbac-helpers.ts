// An agent identity on the embedded cluster, made the way a user makes one with kubectl: a
// ServiceAccount bound to a ClusterRole in one namespace, its token from the TokenRequest API
// (`kubectl create token`), and a kubeconfig that holds only that token.
import { join } from "node:path";
import { kubeconfigYaml } from "../../../src/sim/cluster/kubeconfig.js";
import type { TestCluster } from "../../helpers/cluster.js";

export const NS = "simple-micro";
export const SA = "oncall";
export const AGENT = `system:serviceaccount:${NS}:${SA}`;

export const NAMESPACE_AND_BINDING = `
apiVersion: v1
kind: Namespace
metadata: {name: ${NS}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: ${SA}, namespace: ${NS}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: agent-edit, namespace: ${NS}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: ServiceAccount, name: ${SA}, namespace: ${NS}}]
`;

/** Set up the agent and write its kubeconfig; returns the path and the token. */
export async function agentKubeconfig(
  t: TestCluster,
  name = "agent.kubeconfig",
): Promise<{ path: string; token: string }> {
  await t.kubectl(["apply", "-f", "-"], { input: NAMESPACE_AND_BINDING });
  const token = (await t.kubectl(["create", "token", SA, "-n", NS, "--duration=24h"])).stdout.trim();
  const path = t.file(
    name,
    kubeconfigYaml(t.cluster.url, { ca: t.cluster.auth.pki.ca, user: { token } }, NS),
  );
  return { path, token };
}

export const forbiddenLine = (verb: string, resource: string, group: string, where: string) =>
  `User "${AGENT}" cannot ${verb} resource "${resource}" in API group "${group}" ${where}`;

export const inDir = (t: TestCluster, f: string) => join(t.dir, f);
