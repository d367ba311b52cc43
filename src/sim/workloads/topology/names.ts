// Names and addresses as a pod on k3s sees them: CoreDNS's kubernetes plugin (Services, headless
// Services' pods, StatefulSet pod hostnames, a-b-c-d.<ns>.pod), the pod's resolv.conf search list
// with ndots:5, /etc/hosts (localhost, the pod's own name), and names outside the cluster that
// CoreDNS forwards upstream (outside.ts). A query crosses the pod's egress to CoreDNS (delay
// adds, a lost query is retried after the resolver's 5 s timeout, twice); a forwarded one also
// waits for the upstream resolver's round trip.

import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import { internalIP, podReady } from "../../core/meta.js";
import type { Node, Pod, Service } from "../../core/objects.js";
import { KUBERNETES_SERVICE_IP } from "../../userland/env.js";
import { CLUSTER_DNS, CLUSTER_DOMAIN } from "../../userland/system-files.js";
import { draw, egress } from "./impairments.js";
import { packetRttMs, publicAddress, UPSTREAM_RESOLVER } from "./outside.js";

/** Who asks: a process in a pod (exec's Proc is one). */
export interface Caller {
  pod: Pod;
  ctx: SimContext;
  sleep(ms: number): Promise<boolean>;
}

/** Who asks, without the need to wait (the answers that take no time). */
export type Asker = Pick<Caller, "pod" | "ctx">;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export type Holder =
  | { kind: "pod"; pod: Pod }
  | { kind: "service"; svc?: Service }
  | { kind: "node"; node: Node }
  | { kind: "loopback" }
  | { kind: "unassigned" }
  | { kind: "external" };

/** What answers at an IP in the cluster. */
export function whoHas(p: Asker, ip: string): Holder {
  if (ip.startsWith("127.") || ip === p.pod.status?.podIP)
    return ip.startsWith("127.") ? { kind: "loopback" } : { kind: "pod", pod: p.pod };
  // the store's own lists (an address is held by one object at most: no order to keep)
  const { store } = p.ctx;
  const pod = (store.list(R("Pod")) as Pod[]).find(
    (x) => x.status?.podIP === ip && !["Succeeded", "Failed"].includes(x.status?.phase ?? ""),
  );
  if (pod) return { kind: "pod", pod };
  const svc = (store.list(R("Service")) as Service[]).find((s) => s.spec?.clusterIP === ip);
  if (svc || ip === KUBERNETES_SERVICE_IP || ip === CLUSTER_DNS) return { kind: "service", svc };
  const node = (store.list(R("Node")) as Node[]).find((n) => internalIP(n) === ip);
  if (node) return { kind: "node", node };
  return /^10\.4[23]\./.test(ip) ? { kind: "unassigned" } : { kind: "external" };
}

/** The addresses CoreDNS answers for a fully qualified name, or undefined (NXDOMAIN). */
export function resolveFqdn(p: Asker, fqdn: string): string[] | undefined {
  const name = fqdn.replace(/\.$/, "").toLowerCase();
  const suffix = `.svc.${CLUSTER_DOMAIN}`;
  const { registry } = p.ctx;
  if (name === `kubernetes.default${suffix}`) return [KUBERNETES_SERVICE_IP];
  if (name === `kube-dns.kube-system${suffix}`) return [CLUSTER_DNS];
  const pod = name.match(/^(\d+)-(\d+)-(\d+)-(\d+)\.[a-z0-9-]+\.pod\.cluster\.local$/);
  if (pod) return [pod.slice(1, 5).join(".")];
  if (name === CLUSTER_DOMAIN || name.endsWith(`.${CLUSTER_DOMAIN}`)) {
    if (!name.endsWith(suffix)) return undefined;
  } else {
    // CoreDNS's `forward . /etc/resolv.conf`: everything outside the cluster domain goes upstream
    const ip = publicAddress(p.ctx, name);
    return ip ? [ip] : undefined;
  }
  const parts = name.slice(0, -suffix.length).split(".");
  if (parts.length === 2) {
    const [svcName, ns] = parts;
    const svc = registry.tryGet(R("Service"), ns, svcName) as Service | undefined;
    if (!svc) return undefined;
    if (svc.spec?.clusterIP && svc.spec.clusterIP !== "None") return [svc.spec.clusterIP];
    const ips = (registry.list(R("Pod"), ns) as Pod[])
      .filter(
        (x) => matches(svc, x) && x.status?.podIP && (svc.spec?.publishNotReadyAddresses || podReady(x)),
      )
      .flatMap((x) => x.status?.podIP || []);
    return ips.length ? ips : undefined;
  }
  if (parts.length === 3) {
    const [host, sub, ns] = parts;
    const ip = (registry.list(R("Pod"), ns) as Pod[]).find(
      (q) => (q.spec?.hostname ?? q.metadata.name) === host && q.spec?.subdomain === sub && q.status?.podIP,
    )?.status?.podIP;
    return ip ? [ip] : undefined;
  }
  return undefined;
}

function matches(svc: Service, pod: Pod): boolean {
  const sel = svc.spec?.selector ?? {};
  const keys = Object.keys(sel);
  return keys.length > 0 && keys.every((k) => pod.metadata.labels?.[k] === sel[k]);
}

/** The names the resolver tries, in order (search list first below ndots:5). */
export function candidates(p: Asker, name: string): string[] {
  if (name.endsWith(".")) return [name];
  const ns = p.pod.metadata.namespace;
  const search = [`${ns}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN];
  const dots = name.split(".").length - 1;
  const searched = search.map((s) => `${name}.${s}`);
  return dots >= 5 ? [name, ...searched] : [...searched, name];
}

export type Lookup = { fqdn: string; ips: string[] } | { error: "nxdomain" | "timeout" };

/** Resolve without the network: /etc/hosts, literals, then CoreDNS's answers. */
export function resolveNow(p: Asker, name: string): Lookup {
  if (IPV4.test(name)) return { fqdn: name, ips: [name] };
  if (name === "localhost") return { fqdn: "localhost", ips: ["127.0.0.1"] };
  const own = p.pod.spec?.hostname ?? p.pod.metadata.name;
  if (name === own) return { fqdn: own, ips: [p.pod.status?.podIP ?? "127.0.0.1"] };
  for (const c of candidates(p, name)) {
    const ips = resolveFqdn(p, c);
    if (ips) return { fqdn: c.replace(/\.$/, ""), ips };
  }
  return { error: "nxdomain" };
}

/** Resolve a host name the way the pod's resolver does, taking cluster time. */
export async function lookup(p: Caller, name: string): Promise<Lookup> {
  const answer = resolveNow(p, name);
  if (IPV4.test(name) || ("fqdn" in answer && (answer.fqdn === "localhost" || !answer.fqdn.includes("."))))
    return answer;
  const link = egress(p.ctx.faults, p.pod, CLUSTER_DNS);
  const fqdn = "fqdn" in answer ? answer.fqdn : "";
  const forwarded = fqdn !== "" && !fqdn.endsWith(`.${CLUSTER_DOMAIN}`);
  let waited = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (p.ctx.rng.next() >= link.loss) {
      const upstream = forwarded ? packetRttMs(UPSTREAM_RESOLVER, () => p.ctx.rng.next()) : 0;
      await p.sleep(waited + draw(link, () => p.ctx.rng.next()) + 0.3 + upstream);
      return answer;
    }
    waited += 5000;
  }
  await p.sleep(waited);
  return { error: "timeout" };
}
