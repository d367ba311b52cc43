// What the k3s server does to a new cluster besides serving the built-in API: it applies its own
// CRDs and Traefik's, and the objects every k3s cluster has (../stages/k3s.yaml), and
// kube-aggregator registers an APIService for every group-version served (local ones Available
// at once; metrics.k8s.io through metrics-server's Service).
import type { Rng } from "../../util/rng.js";
import { groupVersions, R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import type { KObject } from "../core/types.js";
import type { K3sCrdDoc } from "../stages/load.js";

function crdObject(d: K3sCrdDoc): KObject {
  const plural = `${d.kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${d.group}` },
    spec: {
      group: d.group,
      names: { kind: d.kind, plural, singular: d.kind.toLowerCase(), listKind: `${d.kind}List` },
      scope: d.scope ?? "Namespaced",
      versions: [
        {
          name: d.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          ...(d.columns?.length
            ? {
                additionalPrinterColumns: d.columns.map(([name, jsonPath]) => ({
                  name,
                  type: "string",
                  jsonPath,
                })),
              }
            : {}),
        },
      ],
    },
  };
}

/** kube-aggregator's autoregistration: one APIService per served group-version. */
function apiServices(now: string): KObject[] {
  return groupVersions().map(({ group, version }) => {
    const metrics = group === "metrics.k8s.io";
    return {
      apiVersion: "apiregistration.k8s.io/v1",
      kind: "APIService",
      metadata: {
        name: `${version}.${group}`,
        ...(metrics ? {} : { labels: { "kube-aggregator.kubernetes.io/automanaged": "onstart" } }),
      },
      spec: {
        ...(group ? { group } : {}),
        version,
        groupPriorityMinimum: metrics ? 100 : 18000,
        versionPriority: metrics ? 100 : 15,
        ...(metrics
          ? {
              service: { namespace: "kube-system", name: "metrics-server", port: 443 },
              insecureSkipTLSVerify: true,
            }
          : {}),
      },
      status: {
        conditions: [
          metrics
            ? {
                type: "Available",
                status: "True",
                lastTransitionTime: now,
                reason: "Passed",
                message: "all checks passed",
              }
            : {
                type: "Available",
                status: "True",
                lastTransitionTime: now,
                reason: "Local",
                message: "Local APIServices are always available",
              },
        ],
      },
    };
  });
}

/** `rng` names the objects, apart from the cluster's other draws. */
export function applyK3sManifests(ctx: SimContext, rng: Rng): void {
  const { registry, stages } = ctx;
  for (const d of stages.k3s.crds)
    registry.create(R("CustomResourceDefinition"), undefined, crdObject(d), { rng });
  for (const o of stages.k3s.objects) {
    const obj = structuredClone(o) as KObject;
    const rt = R(obj.kind);
    registry.create(rt, rt.namespaced ? (obj.metadata.namespace ?? "default") : undefined, obj, { rng });
  }
  for (const svc of apiServices(registry.now())) {
    const created = registry.create(R("APIService"), undefined, svc, { rng });
    // status is the aggregator's: written through the status subresource, as its controller does
    registry.update(
      R("APIService"),
      undefined,
      created.metadata.name!,
      { ...created, status: svc.status },
      { subresource: "status", force: true },
    );
  }
}
