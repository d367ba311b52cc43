// Where the harness keeps its chaos: in Chaos Mesh's own namespace, as Chaos Mesh installs do
// (`helm install chaos-mesh -n chaos-mesh`, scripts/install.sh), never in the namespace under
// test. Each object selects its target namespace with `spec.selector.namespaces` (Chaos Mesh's
// webhook defaults an empty list to the object's own namespace, api/v1alpha1/common_webhook.go
// PodSelector.Default, so the list is always given), and Chaos Mesh records its events on the
// object, in that namespace (controllers/utils/recorder makeEvent): nothing of the fault shows
// in the target namespace, where the agent's identity reads. Names carry the target namespace,
// so that parallel copies of a system (<ns>, <ns>-2) never share an object.

import { MANAGED_LABEL, MANAGED_VALUE } from "../envs/deploy.js";
import type { KubeClient } from "../kube/client.js";
import { ensureNamespaceExists } from "../kube/ensure-namespace.js";

/** The Chaos Mesh kinds the catalog uses. */
export const CHAOS_KINDS = ["StressChaos", "NetworkChaos", "PodChaos", "IOChaos", "HTTPChaos"];

/** Chaos Mesh's namespace: where its controller runs and where the harness creates its chaos. */
export const CHAOS_NAMESPACE = "chaos-mesh";

/** The label that says which namespace a chaos object of the harness aims at. */
export const TARGET_NAMESPACE_LABEL = "microremed.io/target-namespace";

/** The chaos object's name for a target namespace: `<namespace>-<template's name>`. */
export const chaosName = (targetNamespace: string, name: string) => `${targetNamespace}-${name}`;

/** The labels that make a chaos object the harness's, aimed at one namespace. */
export const chaosLabels = (targetNamespace: string): Record<string, string> => ({
  [MANAGED_LABEL]: MANAGED_VALUE,
  [TARGET_NAMESPACE_LABEL]: targetNamespace,
});

/** The label selector of the harness's chaos aimed at a namespace. */
export const chaosSelector = (targetNamespace: string) =>
  `${MANAGED_LABEL}=${MANAGED_VALUE},${TARGET_NAMESPACE_LABEL}=${targetNamespace}`;

/**
 * Make sure the chaos namespace is there. A cluster where Chaos Mesh was installed with its chart
 * has it (scripts/install.sh); one that serves Chaos Mesh's CRDs without it (the embedded cluster,
 * CRDs applied by hand) gets it, as `helm install --create-namespace` would make it.
 */
export async function ensureChaosNamespace(client: KubeClient): Promise<void> {
  await ensureNamespaceExists(client, CHAOS_NAMESPACE);
}
