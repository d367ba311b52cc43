// Endpoints: each Service with a selector lists its pods' IPs, Ready ones under `addresses`,
// the others under `notReadyAddresses` (so a failed pod drops out of the Service).
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import type { SimContext } from "../context/context.js";
import { keyOf, podReady, splitKey } from "../core/meta.js";
import type { EndpointAddress, EndpointPort, Endpoints, Pod, Service, ServicePort } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const NAME = "endpoints";

function resolvePort(pod: Pod, targetPort: number | string): number | undefined {
  if (typeof targetPort === "number") return targetPort;
  if (/^\d+$/.test(targetPort)) return Number(targetPort);
  for (const c of pod.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === targetPort) return p.containerPort;
  return undefined;
}

export function installEndpointsController(ctx: SimContext) {
  const { store, registry, runtime } = ctx;
  // the Endpoints this controller wrote (kube's controller keeps them by the Service's key too);
  // no label on them, which a reader of the namespace would see and kube does not put there
  const managed = new Set<string>();
  runtime.register(NAME, (key) => {
    const [ns, name] = splitKey(key);
    const svc = registry.tryGet(R("Service"), ns, name) as Service | undefined;
    const existing = registry.tryGet(R("Endpoints"), ns, name) as Endpoints | undefined;
    if (!svc?.spec?.selector || Object.keys(svc.spec.selector).length === 0) {
      // Services without a selector keep hand-made Endpoints; a deleted Service takes its own.
      if (!svc && existing && managed.has(key)) registry.delete(R("Endpoints"), ns, name);
      if (!existing || !svc) managed.delete(key);
      return;
    }
    managed.add(key);
    const pods = (store.list(R("Pod"), ns) as Pod[])
      .filter(
        (p) =>
          selectorMatches({ matchLabels: svc.spec.selector }, p.metadata.labels) &&
          p.status?.podIP &&
          !p.metadata.deletionTimestamp,
      )
      .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    const groups = new Map<
      string,
      { addresses: EndpointAddress[]; notReadyAddresses: EndpointAddress[]; ports: EndpointPort[] }
    >();
    for (const pod of pods) {
      const ports: EndpointPort[] = (svc.spec.ports ?? []).map((sp: ServicePort) => ({
        name: sp.name,
        port: resolvePort(pod, sp.targetPort ?? sp.port),
        protocol: sp.protocol ?? "TCP",
      }));
      if (ports.some((p) => p.port === undefined)) continue;
      const clean: EndpointPort[] = ports.map((p) => (p.name ? p : { port: p.port, protocol: p.protocol }));
      const gk = JSON.stringify(clean);
      const g = groups.get(gk) ?? { addresses: [], notReadyAddresses: [], ports: clean };
      groups.set(gk, g);
      const addr = {
        ip: pod.status!.podIP!, // the filter above kept only pods with an IP
        nodeName: pod.spec.nodeName,
        targetRef: { kind: "Pod", namespace: ns, name: pod.metadata.name, uid: pod.metadata.uid },
      };
      (podReady(pod) ? g.addresses : g.notReadyAddresses).push(addr);
    }
    const subsets = [...groups.values()].map((g) => ({
      ...(g.addresses.length ? { addresses: g.addresses } : {}),
      ...(g.notReadyAddresses.length ? { notReadyAddresses: g.notReadyAddresses } : {}),
      ports: g.ports,
    }));
    const labels = { ...(svc.metadata.labels ?? {}) };
    if (!existing) {
      registry.create(R("Endpoints"), ns, {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name, labels },
        ...(subsets.length ? { subsets } : {}),
      });
    } else if (!isDeepStrictEqual(existing.subsets ?? [], subsets)) {
      const next = { ...existing, metadata: { ...existing.metadata, labels } } as KObject;
      if (subsets.length) next.subsets = subsets;
      else delete next.subsets;
      registry.update(R("Endpoints"), ns, name, next, { force: true });
    }
  });
  store.subscribe((e) => {
    if (e.rt.kind === "Service") runtime.enqueue(NAME, keyOf(e.object));
    else if (e.rt.kind === "Pod") {
      const ns = e.object.metadata.namespace;
      for (const svc of store.list(R("Service"), ns) as Service[]) {
        const sel = svc.spec?.selector;
        if (!sel) continue;
        if (
          selectorMatches({ matchLabels: sel }, e.object.metadata.labels) ||
          (e.old && selectorMatches({ matchLabels: sel }, e.old.metadata.labels))
        )
          runtime.enqueue(NAME, keyOf(svc));
      }
    }
  });
}
