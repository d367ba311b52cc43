// The identity `microremed mcp` acts as, made as a run's case makes it: given a kubeconfig that may
// (an admin's), it makes the namespace's own ServiceAccount, Role and bindings (agent.ts) and the
// tools act as that; given one that may not, the tools act as the given one, but only when the API
// server says it cannot act outside the namespace (SelfSubjectAccessReview, what `kubectl auth
// can-i` asks) or --agent-access cluster-admin says it may.

import { MicroRemedError } from "../errors.js";
import { KubeApiError, KubeClient } from "../kube/client.js";
import { loadKubeConfig } from "../kube/connect.js";
import { type AgentAccess, createAgentIdentity, removeAgentIdentity } from "./agent.js";

export interface ActingIdentity {
  /** The kubeconfig the tools act as. */
  kubeconfig: string;
  /** Whether it was made here (and is removed by `remove`). */
  made: boolean;
  /** Remove what was made: the ServiceAccount, its bindings, its kubeconfig. */
  remove(): Promise<void>;
}

/** Acts outside one namespace, each a question for SelfSubjectAccessReview (namespace "": every one). */
const OUTSIDE = [
  { verb: "list", group: "", resource: "pods", namespace: "", what: "list pods in every namespace" },
  { verb: "create", group: "", resource: "pods", namespace: "", what: "create pods in every namespace" },
  {
    verb: "delete",
    group: "apps",
    resource: "deployments",
    namespace: "",
    what: "delete Deployments in every namespace",
  },
  { verb: "get", group: "", resource: "secrets", namespace: "", what: "read Secrets in every namespace" },
  { verb: "create", group: "", resource: "namespaces", what: "create namespaces" },
  {
    verb: "create",
    group: "rbac.authorization.k8s.io",
    resource: "clusterrolebindings",
    what: "bind cluster roles",
  },
];

/** What the kubeconfig's identity may do outside a namespace, as the API server answers it. */
export async function outsideAccess(client: KubeClient): Promise<string[]> {
  const allowed: string[] = [];
  for (const { what, ...attributes } of OUTSIDE) {
    const review = await client.request<{ status?: { allowed?: boolean } }>(
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: { resourceAttributes: attributes },
        },
      },
    );
    if (review.status?.allowed) allowed.push(what);
  }
  return allowed;
}

const forbidden = (e: unknown) => e instanceof KubeApiError && e.status === 403;

/** The identity the tools act as for `namespace`, made from the given kubeconfig when it may. */
export async function confineIdentity(
  kubeconfig: string,
  namespace: string,
  access: AgentAccess,
): Promise<ActingIdentity> {
  const given = new KubeClient(loadKubeConfig({ kubeconfig }).kc);
  try {
    const id = await createAgentIdentity(given, namespace, access);
    return { kubeconfig: id.kubeconfigPath, made: true, remove: () => id.remove() };
  } catch (e) {
    if (!forbidden(e)) throw e;
    // the given identity may not make one: leave nothing half made
    await removeAgentIdentity(given, namespace).catch(() => undefined);
  }
  if (access === "namespace") {
    const outside = await outsideAccess(given);
    if (outside.length)
      throw new MicroRemedError(
        "E_CONFIG",
        `the kubeconfig ${kubeconfig} can ${outside.join(", ")}: it acts outside the namespace ${namespace}, and may not make the namespace's own confined identity (a ServiceAccount, Role and RoleBinding)`,
        "pass an admin's kubeconfig (microremed mcp then makes a ServiceAccount confined to the namespace and removes it at exit), one confined to the namespace, or --agent-access cluster-admin to let the tools act as this one",
      );
  }
  return { kubeconfig, made: false, remove: async () => undefined };
}
