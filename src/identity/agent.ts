// The agent's identity for one case: a ServiceAccount in the case's namespace, bound to a Role
// that gives what an on-call engineer of that namespace has, and a kubeconfig that holds only its
// token. The probe, the playbook and an external agent act as it; Kubernetes RBAC (on the
// embedded cluster as on k3s) refuses the rest with 403. The harness keeps its admin identity.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { MicroRemedError } from "../errors.js";
import { KubeApiError, type KubeClient } from "../kube/client.js";
import { agentClusterRules, agentRules } from "./rules.js";

export type AgentAccess = "namespace" | "cluster-admin";

/**
 * The name of the ServiceAccount, its Role and bindings: what an organisation would call its on-call
 * access, so nothing the agent can list tells a test from an incident (a 403 quotes it).
 */
export const AGENT_NAME = "oncall";
const RBAC = "rbac.authorization.k8s.io/v1";

export interface AgentIdentity {
  /** system:serviceaccount:<ns>:oncall */
  user: string;
  /** A kubeconfig (0600, in a private folder) with the cluster and the token, nothing else. */
  kubeconfigPath: string;
  /** Delete the bindings and the ServiceAccount (its token stops working) and the folder. */
  remove(): Promise<void>;
}

/** The cluster entry of the harness's kubeconfig, with its CA inlined: what the agent may know. */
function clusterEntry(client: KubeClient): Record<string, unknown> {
  const c = client.kc.getCurrentCluster();
  if (!c)
    throw new MicroRemedError("E_CONFIG", "the kubeconfig has no current cluster", "pick one with --context");
  const entry: Record<string, unknown> = { server: c.server };
  if (c.caData) entry["certificate-authority-data"] = c.caData;
  else if (c.caFile) entry["certificate-authority"] = c.caFile;
  if (c.skipTLSVerify) entry["insecure-skip-tls-verify"] = true;
  if (c.tlsServerName) entry["tls-server-name"] = c.tlsServerName;
  return entry;
}

export function agentKubeconfig(cluster: Record<string, unknown>, token: string, namespace: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "case", cluster }],
    users: [{ name: AGENT_NAME, user: { token } }],
    contexts: [{ name: "case", context: { cluster: "case", user: AGENT_NAME, namespace } }],
    "current-context": "case",
  });
}

/**
 * Create the object, or replace the one there. Parallel cases share the cluster-scoped
 * ClusterRole: when another case creates it between our look and our create (409), or changes it
 * before our replace (409 conflict), look again.
 */
async function upsert(
  client: KubeClient,
  obj: Parameters<KubeClient["create"]>[0],
  tries = 3,
): Promise<void> {
  const ns = obj.metadata.namespace;
  try {
    const have = await client.tryGet(obj.apiVersion, obj.kind, ns, obj.metadata.name ?? "");
    if (have)
      await client.replace(
        { ...obj, metadata: { ...obj.metadata, resourceVersion: have.metadata.resourceVersion } },
        ns,
      );
    else await client.create(obj, ns);
  } catch (e) {
    if (!(e instanceof KubeApiError && e.status === 409) || tries <= 1) throw e;
    await upsert(client, obj, tries - 1);
  }
}

/** Names of the cluster-scoped binding per namespace (nodes and node metrics, read-only). */
const clusterBindingName = (namespace: string) => `${AGENT_NAME}-${namespace}`;

export async function createAgentIdentity(
  client: KubeClient,
  namespace: string,
  access: AgentAccess,
): Promise<AgentIdentity> {
  const subject = { kind: "ServiceAccount", name: AGENT_NAME, namespace };
  const meta = (name: string, ns?: string) => ({ name, ...(ns ? { namespace: ns } : {}) });
  await upsert(client, { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(AGENT_NAME, namespace) });
  if (access === "namespace") {
    await upsert(client, {
      apiVersion: RBAC,
      kind: "Role",
      metadata: meta(AGENT_NAME, namespace),
      rules: agentRules(),
    });
    await upsert(client, {
      apiVersion: RBAC,
      kind: "RoleBinding",
      metadata: meta(AGENT_NAME, namespace),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: AGENT_NAME },
      subjects: [subject],
    });
    await upsert(client, {
      apiVersion: RBAC,
      kind: "ClusterRole",
      metadata: meta(AGENT_NAME),
      rules: agentClusterRules(),
    });
  }
  await upsert(client, {
    apiVersion: RBAC,
    kind: "ClusterRoleBinding",
    metadata: meta(clusterBindingName(namespace)),
    // the reference's setting: the agent may do anything (recorded with the run)
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: access === "cluster-admin" ? "cluster-admin" : AGENT_NAME,
    },
    subjects: [subject],
  });
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${AGENT_NAME}/token`;
  const tr = await client.request<{ status?: { token?: string } }>("POST", path, {
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      // on the cluster's clock: a week outlasts any case even while the embedded cluster runs
      // 60 times faster than the wall clock (the identity is deleted after the case anyway)
      spec: { expirationSeconds: 7 * 24 * 3600 },
    },
  });
  const token = tr.status?.token;
  if (!token)
    throw new MicroRemedError(
      "E_CLUSTER",
      `the cluster issued no token for ${namespace}/${AGENT_NAME} (TokenRequest answered without status.token)`,
      "the cluster must serve the TokenRequest API (Kubernetes 1.22 or newer)",
      { reason: "cluster" },
    );
  const dir = mkdtempSync(join(tmpdir(), "kube-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  writeFileSync(kubeconfigPath, agentKubeconfig(clusterEntry(client), token, namespace), { mode: 0o600 });
  return {
    user: `system:serviceaccount:${namespace}:${AGENT_NAME}`,
    kubeconfigPath,
    remove: async () => {
      rmSync(dir, { recursive: true, force: true });
      await removeAgentIdentity(client, namespace);
    },
  };
}

/** Everything createAgentIdentity made in (and for) a namespace; missing objects are fine. */
export async function removeAgentIdentity(client: KubeClient, namespace: string): Promise<void> {
  await client.delete(RBAC, "ClusterRoleBinding", undefined, clusterBindingName(namespace));
  await client.delete(RBAC, "RoleBinding", namespace, AGENT_NAME);
  await client.delete(RBAC, "Role", namespace, AGENT_NAME);
  await client.delete("v1", "ServiceAccount", namespace, AGENT_NAME);
}
