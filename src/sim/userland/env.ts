// A container's environment as the kubelet builds it: the image's PATH and HOSTNAME, the API
// server's KUBERNETES_* variables, service links for the namespace's services (unless the pod
// turns them off), then envFrom and env from the pod spec, with valueFrom resolved against the
// cluster and $(VAR) references expanded, as the kubelet does when it creates the container
// (kubelet_pods.go makeEnvironmentVariables: envFrom first, then env in order, a later entry of a
// name replacing an earlier one, service variables only where the pod set none). The container
// keeps what it was created with: the kubelet composes it once per container instance
// (`createContainerEnv`) and every process of that instance, exec'd ones too, sees that.

import { parseQuantity } from "../../util/quantity.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import type {
  ConfigMap,
  Container,
  Pod,
  ResourceRef,
  Secret,
  Service,
  ServicePort,
} from "../core/objects.js";
import type { KObject } from "../core/types.js";

export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** k3s' defaults: the `kubernetes` Service's ClusterIP. */
export const KUBERNETES_SERVICE_IP = "10.43.0.1";

/** Service link variables for one service, as docker links named them. */
function serviceVars(svc: Service): [string, string][] {
  const ip = svc.spec?.clusterIP;
  const ports: ServicePort[] = svc.spec?.ports ?? [];
  if (!ip || ip === "None" || !ports.length) return [];
  const n = svc.metadata.name!.toUpperCase().replace(/-/g, "_");
  const p0 = ports[0];
  const proto = (p: ServicePort) => String(p.protocol ?? "TCP").toLowerCase();
  const out: [string, string][] = [
    [`${n}_SERVICE_HOST`, ip],
    [`${n}_SERVICE_PORT`, String(p0.port)],
  ];
  for (const p of ports)
    if (p.name)
      out.push([`${n}_SERVICE_PORT_${String(p.name).toUpperCase().replace(/-/g, "_")}`, String(p.port)]);
  out.push([`${n}_PORT`, `${proto(p0)}://${ip}:${p0.port}`]);
  for (const p of ports) {
    const pre = `${n}_PORT_${p.port}_${proto(p).toUpperCase()}`;
    out.push(
      [pre, `${proto(p)}://${ip}:${p.port}`],
      [`${pre}_PROTO`, proto(p)],
      [`${pre}_PORT`, String(p.port)],
      [`${pre}_ADDR`, ip],
    );
  }
  return out;
}

function kubernetesVars(): [string, string][] {
  const ip = KUBERNETES_SERVICE_IP;
  return [
    ["KUBERNETES_SERVICE_HOST", ip],
    ["KUBERNETES_SERVICE_PORT", "443"],
    ["KUBERNETES_SERVICE_PORT_HTTPS", "443"],
    ["KUBERNETES_PORT", `tcp://${ip}:443`],
    ["KUBERNETES_PORT_443_TCP", `tcp://${ip}:443`],
    ["KUBERNETES_PORT_443_TCP_PROTO", "tcp"],
    ["KUBERNETES_PORT_443_TCP_PORT", "443"],
    ["KUBERNETES_PORT_443_TCP_ADDR", ip],
  ];
}

function fieldValue(pod: Pod, path: string): string | undefined {
  const m = path.match(/^metadata\.(labels|annotations)\['(.+)'\]$/);
  if (m) return pod.metadata[m[1] as "labels" | "annotations"]?.[m[2]];
  const simple: Record<string, () => unknown> = {
    "metadata.name": () => pod.metadata.name,
    "metadata.namespace": () => pod.metadata.namespace,
    "metadata.uid": () => pod.metadata.uid,
    "spec.nodeName": () => pod.spec?.nodeName,
    "spec.serviceAccountName": () => pod.spec?.serviceAccountName ?? "default",
    "status.hostIP": () => pod.status?.hostIP,
    "status.hostIPs": () => pod.status?.hostIP,
    "status.podIP": () => pod.status?.podIP,
    "status.podIPs": () => pod.status?.podIP,
  };
  const v = simple[path]?.();
  return v === undefined || v === null ? undefined : String(v);
}

function resourceValue(container: Container, ref: ResourceRef): string | undefined {
  const [kind, res] = String(ref.resource ?? "").split(".");
  const r = container?.resources;
  const q = (kind === "limits" ? r?.limits : kind === "requests" ? r?.requests : undefined)?.[res];
  if (q === undefined) return undefined;
  const divisor = parseQuantity(ref.divisor ?? (res === "cpu" ? "1" : "1")) || 1;
  return String(Math.ceil(parseQuantity(q) / divisor));
}

const decode = (b64: string) => Buffer.from(b64, "base64").toString("utf8");

/** Data of a ConfigMap or Secret (decoded), or undefined if it does not exist. */
export function sourceData(
  ctx: SimContext,
  kind: "ConfigMap" | "Secret",
  ns: string,
  name: string | undefined,
): Record<string, string> | undefined {
  const o = name === undefined ? undefined : ctx.registry.tryGet(R(kind), ns, name);
  if (!o) return undefined;
  if (kind === "ConfigMap") {
    const cm = o as ConfigMap;
    const bin = Object.fromEntries(
      Object.entries(cm.binaryData ?? {}).map(([k, v]) => [k, decode(String(v))]),
    );
    return { ...bin, ...(cm.data ?? {}) };
  }
  const secret = o as Secret;
  return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, decode(String(v))]));
}

/** Expand $(VAR) from earlier variables; $$(VAR) escapes to $(VAR); unknown references stay. */
export function expandRefs(value: string, ...scopes: Map<string, string>[]): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name?: string) => {
    if (all === "$$") return "$";
    for (const s of scopes) if (s.has(name!)) return s.get(name!)!;
    return all;
  });
}

/** Container instances whose environment is kept (older ones are dropped first). */
const MAX_SNAPSHOTS = 20_000;
const snapshots = new WeakMap<object, Map<string, Map<string, string>>>();

function snapshotsOf(ctx: SimContext): Map<string, Map<string, string>> {
  let m = snapshots.get(ctx.store);
  if (!m) {
    m = new Map();
    snapshots.set(ctx.store, m);
  }
  return m;
}

const instance = (pod: KObject, container: string, restartCount: number) =>
  `${pod.metadata.uid}/${container}/${restartCount}`;

/** The kubelet creates a container instance: its environment is composed now and kept. */
export function createContainerEnv(
  ctx: SimContext,
  pod: KObject,
  container: Container,
  restartCount: number,
): ReadonlyMap<string, string> {
  const env = composeEnv(ctx, pod, container);
  const book = snapshotsOf(ctx);
  if (book.size >= MAX_SNAPSHOTS) book.delete(book.keys().next().value!);
  book.set(instance(pod, container.name, restartCount), env);
  return env;
}

/** The restart count of the container's current instance, from the pod's status. */
function currentRestart(pod: Pod, name: string): number {
  const all = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  return Number(all.find((s) => s.name === name)?.restartCount ?? 0);
}

/**
 * The environment of a container instance (the current one unless `restartCount` says which), as
 * the kubelet created it; composed now for one the kubelet has not created (a pod that never ran).
 */
export function containerEnv(
  ctx: SimContext,
  obj: KObject,
  container: Container,
  restartCount?: number,
): Map<string, string> {
  return new Map(keptEnv(ctx, obj, container, restartCount));
}

/** The same environment, read only and not copied (for readers that look up a few variables). */
export function keptEnv(
  ctx: SimContext,
  obj: KObject,
  container: Container,
  restartCount?: number,
): ReadonlyMap<string, string> {
  const kept = snapshotsOf(ctx).get(
    instance(obj, container.name, restartCount ?? currentRestart(obj as Pod, container.name)),
  );
  return kept ?? composeEnv(ctx, obj, container);
}

/** The environment as the kubelet composes it now, in a stable order. */
function composeEnv(ctx: SimContext, obj: KObject, container: Container): Map<string, string> {
  const pod = obj as Pod;
  const ns = pod.metadata.namespace!;
  const env = new Map<string, string>([
    ["PATH", DEFAULT_PATH],
    ["HOSTNAME", pod.spec?.hostname ?? pod.metadata.name!],
  ]);
  // Service variables come after the pod's own, which win on a clash (as the kubelet merges).
  const services = new Map<string, string>();
  if (pod.spec?.enableServiceLinks !== false) {
    for (const svc of ctx.registry.list(R("Service"), ns) as Service[])
      for (const [k, v] of serviceVars(svc)) services.set(k, v);
  }
  for (const [k, v] of kubernetesVars()) services.set(k, v);
  for (const src of container?.envFrom ?? []) {
    const ref = src.configMapRef ?? src.secretRef;
    if (!ref?.name) continue;
    const data = sourceData(ctx, src.configMapRef ? "ConfigMap" : "Secret", ns, ref.name) ?? {};
    for (const [k, v] of Object.entries(data)) env.set(`${src.prefix ?? ""}${k}`, v);
  }
  for (const e of container?.env ?? []) {
    let v: string | undefined;
    // as the kubelet (kubelet_pods.go makeEnvironmentVariables): a value that is empty (the API
    // decodes a null string as "") gives way to valueFrom
    if (e.value != null && e.value !== "") v = expandRefs(String(e.value), env, services);
    else if (e.valueFrom?.fieldRef) v = fieldValue(pod, e.valueFrom.fieldRef.fieldPath);
    else if (e.valueFrom?.resourceFieldRef) v = resourceValue(container, e.valueFrom.resourceFieldRef);
    else if (e.valueFrom?.configMapKeyRef)
      v = sourceData(ctx, "ConfigMap", ns, e.valueFrom.configMapKeyRef.name)?.[
        e.valueFrom.configMapKeyRef.key
      ];
    else if (e.valueFrom?.secretKeyRef)
      v = sourceData(ctx, "Secret", ns, e.valueFrom.secretKeyRef.name)?.[e.valueFrom.secretKeyRef.key];
    else if (!e.valueFrom) v = "";
    // A missing optional key leaves the variable unset (a required one would have kept the
    // container from starting: CreateContainerConfigError, the kubelet's business).
    if (v !== undefined) env.set(e.name, v);
  }
  for (const [k, v] of services) if (!env.has(k)) env.set(k, v);
  env.set("HOME", env.get("HOME") ?? homeOf(pod, container));
  return env;
}

export function uidOf(pod: Pod, container: Container): number {
  return Number(container?.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser ?? 0);
}

function homeOf(pod: Pod, container: Container): string {
  return uidOf(pod, container) === 0 ? "/root" : "/";
}
