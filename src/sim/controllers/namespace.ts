// Namespaces: new ones get their default ServiceAccount and root CA ConfigMap (the cluster CA's
// certificate, as kube-controller-manager's root-ca-cert-publisher writes it: the one that signed
// the API server's serving certificate); a deleted one is Terminating until everything in it is
// gone, then leaves.
import { R, storedResources } from "../api/resources.js";
import type { SimContext } from "../context/context.js";

const NAME = "namespace";

/** A stand-in where no cluster CA exists (a context built without auth, in unit tests). */
const NO_CA = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n";

export function installNamespaceController(ctx: SimContext, caPem: string = NO_CA) {
  const { store, registry, runtime } = ctx;
  runtime.register(NAME, (name) => {
    const ns = registry.tryGet(R("Namespace"), undefined, name);
    if (!ns) return;
    if (!ns.metadata.deletionTimestamp) {
      if (!registry.tryGet(R("ServiceAccount"), name, "default"))
        registry.create(R("ServiceAccount"), name, {
          apiVersion: "v1",
          kind: "ServiceAccount",
          metadata: { name: "default" },
        });
      if (!registry.tryGet(R("ConfigMap"), name, "kube-root-ca.crt"))
        registry.create(R("ConfigMap"), name, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: {
            name: "kube-root-ca.crt",
            annotations: {
              "kubernetes.io/description":
                "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc.",
            },
          },
          data: { "ca.crt": caPem },
        });
      return;
    }
    let left = 0;
    for (const rt of storedResources(registry.custom.preferred())) {
      if (!rt.namespaced) continue;
      for (const o of store.list(rt, name)) {
        left++;
        if (!o.metadata.deletionTimestamp)
          registry.delete(rt, name, o.metadata.name!, { propagationPolicy: "Background" });
      }
    }
    if (left === 0) registry.purge(R("Namespace"), undefined, name);
    else runtime.enqueueAfter(NAME, name, 1000);
  });
  store.subscribe((e) => {
    if (e.rt.kind === "Namespace" && e.type !== "DELETED") runtime.enqueue(NAME, e.object.metadata.name!);
    else if (e.type === "DELETED" && e.object.metadata.namespace) {
      const ns = store.get(R("Namespace"), undefined, e.object.metadata.namespace);
      if (ns?.metadata.deletionTimestamp) runtime.enqueue(NAME, ns.metadata.name!);
    }
  });
}
