// EndpointSlices of each Service with a selector, as kube-controller-manager's endpointslice
// controller keeps them (pkg/controller/endpointslice/reconciler.go and utils.go): one IPv4 slice
// per distinct set of resolved ports, named from generateName "<service>-", labelled with
// kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by, owned by the Service.
// Every pod with an IP that has not finished is an endpoint (terminating ones too), with
// ready/serving/terminating conditions (podEndpointChanged, podToEndpoint); a Service without
// pods keeps one placeholder slice with no endpoints and no ports. At most 100 endpoints a slice
// (--max-endpoints-per-slice).
import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import { selectorMatches } from "../api/selectors.js";
import type { SimContext } from "../context/context.js";
import { keyOf, ownerRef, podReady, splitKey } from "../core/meta.js";
import type { Pod, Service, ServicePort } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const NAME = "endpointslice";
const MANAGED_BY = "endpointslice-controller.k8s.io";
const MAX_PER_SLICE = 100;

interface SlicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName?: string;
  targetRef: { kind: "Pod"; namespace: string; name: string; uid: string };
}

interface EndpointSlice extends KObject {
  addressType: string;
  ports?: SlicePort[];
  endpoints: SliceEndpoint[];
}

function resolvePort(pod: Pod, targetPort: number | string): number | undefined {
  if (typeof targetPort === "number") return targetPort;
  if (/^\d+$/.test(targetPort)) return Number(targetPort);
  for (const c of pod.spec?.containers ?? [])
    for (const p of c.ports ?? []) if (p.name === targetPort) return p.containerPort;
  return undefined;
}

/** podutil.ShouldPodBeInEndpoints(pod, includeTerminating=true). */
const inEndpoints = (p: Pod) =>
  p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed" && !!p.status?.podIP;

function toEndpoint(pod: Pod, svc: Service): SliceEndpoint {
  const terminating = !!pod.metadata.deletionTimestamp;
  const publish = svc.spec?.publishNotReadyAddresses === true;
  const serving = podReady(pod);
  return {
    addresses: [pod.status!.podIP!], // inEndpoints kept only pods with an IP
    // "ready" is never true for a terminating pod unless publishNotReadyAddresses
    conditions: { ready: publish || (serving && !terminating), serving, terminating },
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    targetRef: {
      kind: "Pod",
      namespace: pod.metadata.namespace!,
      name: pod.metadata.name!,
      uid: pod.metadata.uid!,
    },
  };
}

/** What the slices of a Service should hold: endpoints grouped by their resolved ports. */
function desired(svc: Service, pods: Pod[]): { ports?: SlicePort[]; endpoints: SliceEndpoint[] }[] {
  const groups = new Map<string, { ports: SlicePort[]; endpoints: SliceEndpoint[] }>();
  for (const pod of pods) {
    const ports = (svc.spec?.ports ?? []).map((sp: ServicePort) => ({
      name: sp.name ?? "",
      port: resolvePort(pod, sp.targetPort ?? sp.port),
      protocol: sp.protocol ?? "TCP",
      ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
    }));
    if (ports.some((p) => p.port === undefined)) continue;
    const key = JSON.stringify(ports);
    const g = groups.get(key) ?? { ports: ports as SlicePort[], endpoints: [] };
    groups.set(key, g);
    g.endpoints.push(toEndpoint(pod, svc));
  }
  const out: { ports?: SlicePort[]; endpoints: SliceEndpoint[] }[] = [];
  for (const g of groups.values())
    for (let i = 0; i < g.endpoints.length; i += MAX_PER_SLICE)
      out.push({ ports: g.ports, endpoints: g.endpoints.slice(i, i + MAX_PER_SLICE) });
  // the placeholder: a Service without endpoints still has one (empty) slice
  return out.length ? out : [{ endpoints: [] }];
}

function labelsFor(svc: Service): Record<string, string> {
  return {
    ...(svc.metadata.labels ?? {}),
    ...(svc.spec?.clusterIP === "None" ? { "service.kubernetes.io/headless": "" } : {}),
    "kubernetes.io/service-name": svc.metadata.name!,
    "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
  };
}

export function installEndpointSliceController(ctx: SimContext) {
  const { store, registry, runtime } = ctx;
  // its own stream: the slices' names and uids leave the other objects' draws where they were
  const rng = ctx.stream(NAME);
  const slicesOf = (ns: string | undefined, name: string) =>
    (
      registry.list(R("EndpointSlice"), ns, {
        labelSelector: `kubernetes.io/service-name=${name},endpointslice.kubernetes.io/managed-by=${MANAGED_BY}`,
      }) as EndpointSlice[]
    ).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));

  runtime.register(NAME, (key) => {
    const [ns, name] = splitKey(key);
    const svc = registry.tryGet(R("Service"), ns, name) as Service | undefined;
    const existing = slicesOf(ns, name);
    if (
      !svc?.spec?.selector ||
      Object.keys(svc.spec.selector).length === 0 ||
      svc.metadata.deletionTimestamp
    ) {
      // the garbage collector takes a deleted Service's slices; a selector removed takes them now
      if (svc) for (const s of existing) registry.delete(R("EndpointSlice"), ns, s.metadata.name!);
      return;
    }
    const pods = (store.list(R("Pod"), ns) as Pod[])
      .filter((p) => selectorMatches({ matchLabels: svc.spec.selector }, p.metadata.labels) && inEndpoints(p))
      .sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    const want = desired(svc, pods);
    const labels = labelsFor(svc);
    want.forEach((w, i) => {
      const have = existing[i];
      const body = { addressType: "IPv4", endpoints: w.endpoints, ...(w.ports ? { ports: w.ports } : {}) };
      if (!have) {
        registry.create(
          R("EndpointSlice"),
          ns,
          {
            apiVersion: "discovery.k8s.io/v1",
            kind: "EndpointSlice",
            metadata: { generateName: `${name}-`, labels, ownerReferences: [ownerRef(svc)] },
            ...body,
          },
          { rng },
        );
        return;
      }
      const { addressType, endpoints, ports } = have;
      if (
        isDeepStrictEqual({ addressType, endpoints, ...(ports ? { ports } : {}) }, body) &&
        isDeepStrictEqual(have.metadata.labels, labels)
      )
        return;
      const next: KObject = { ...have, ...body, metadata: { ...have.metadata, labels } };
      if (!w.ports) delete next.ports;
      registry.update(R("EndpointSlice"), ns, have.metadata.name!, next, { force: true });
    });
    for (const extra of existing.slice(want.length))
      registry.delete(R("EndpointSlice"), ns, extra.metadata.name!);
  });

  store.subscribe((e) => {
    if (e.rt.kind === "Service") runtime.enqueue(NAME, keyOf(e.object));
    else if (e.rt.kind === "Pod") {
      for (const svc of store.list(R("Service"), e.object.metadata.namespace) as Service[]) {
        const sel = svc.spec?.selector;
        if (!sel) continue;
        if (
          selectorMatches({ matchLabels: sel }, e.object.metadata.labels) ||
          (e.old && selectorMatches({ matchLabels: sel }, e.old.metadata.labels))
        )
          runtime.enqueue(NAME, keyOf(svc));
      }
    } else if (e.rt.kind === "EndpointSlice" && e.type === "DELETED") {
      // a slice deleted by hand comes back, as the controller's informer sees the deletion
      const svcName = e.object.metadata.labels?.["kubernetes.io/service-name"];
      if (svcName && e.object.metadata.labels?.["endpointslice.kubernetes.io/managed-by"] === MANAGED_BY)
        runtime.enqueue(NAME, `${e.object.metadata.namespace ?? ""}/${svcName}`);
    }
  });
}
