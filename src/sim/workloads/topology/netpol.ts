// NetworkPolicy (networking.k8s.io/v1) as k3s enforces it with its embedded kube-router
// controller. The semantics are the API's: a pod selected by some policy with Ingress in its
// policyTypes admits only what one of those policies' ingress rules allows (podSelector,
// namespaceSelector, both together, ipBlock; ports with protocol and endPort); the same for
// Egress; a pod no policy selects admits everything; traffic within a pod is never affected.
// policyTypes left out means Ingress, plus Egress when the policy has egress rules.
//
// How kube-router enforces it (pkg/controllers/netpol/pod.go, syncPodFirewallChains and
// setupPodNetpolRules; npc_iptables.go ensureCommonPolicyChain), which is what callers see:
//  - a packet no policy admits hits `-j REJECT` (icmp-port-unreachable): a TCP connect fails at
//    once with ECONNREFUSED, "Connection refused", not a timeout;
//  - RELATED,ESTABLISHED traffic is accepted first: a connection opened before the policy keeps
//    working (pooled clients, connections.ts);
//  - ICMP echo-request, destination-unreachable and time-exceeded are always accepted (ping works);
//  - traffic from the node itself (`-m addrtype --src-type LOCAL`, the kubelet's probes) is
//    accepted into every pod.
import { resourceOfKind } from "../../api/resources.js";
import { selectorMatches } from "../../api/selectors.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import type { KObject, ResourceType } from "../../core/types.js";

/** The policy resource (served by the API server; the store keys it by group and resource). */
export const NETWORK_POLICY: ResourceType = resourceOfKind("NetworkPolicy", "networking.k8s.io") ?? {
  group: "networking.k8s.io",
  version: "v1",
  resource: "networkpolicies",
  kind: "NetworkPolicy",
  singular: "networkpolicy",
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
};

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

interface PolicyPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}

interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

interface Rule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}

interface NetworkPolicy extends KObject {
  spec?: {
    podSelector?: Selector;
    policyTypes?: string[];
    ingress?: Rule[];
    egress?: Rule[];
  };
}

/** One end of a connection: a pod, the node itself (the kubelet), or an address. */
export type Endpoint = { pod: Pod } | { node: true; ip?: string } | { ip: string };

export interface Flow {
  from: Endpoint;
  to: Endpoint;
  port: number;
  protocol?: "TCP" | "UDP" | "SCTP";
}

const podOf = (e: Endpoint): Pod | undefined => ("pod" in e ? e.pod : undefined);
const ipOf = (e: Endpoint): string | undefined => ("pod" in e ? e.pod.status?.podIP : e.ip);

function typesOf(p: NetworkPolicy): string[] {
  if (p.spec?.policyTypes?.length) return p.spec.policyTypes;
  return p.spec?.egress?.length ? ["Ingress", "Egress"] : ["Ingress"];
}

/** Policies of the pod's namespace that select it for `type` (Ingress or Egress). */
export function policiesFor(ctx: SimContext, pod: Pod, type: "Ingress" | "Egress"): NetworkPolicy[] {
  return (ctx.store.list(NETWORK_POLICY, pod.metadata.namespace) as NetworkPolicy[]).filter(
    (p) => typesOf(p).includes(type) && selectorMatches(p.spec?.podSelector ?? {}, pod.metadata.labels ?? {}),
  );
}

function nsLabels(ctx: SimContext, ns: string | undefined): Record<string, string> {
  const o = ns ? ctx.store.list(resourceOfKind("Namespace")!).find((n) => n.metadata.name === ns) : undefined;
  // the API server labels every namespace with its name (kubernetes.io/metadata.name, 1.21+)
  return { ...(o?.metadata.labels ?? {}), ...(ns ? { "kubernetes.io/metadata.name": ns } : {}) };
}

function ipToInt(ip: string): number | undefined {
  const m = ip.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  return m ? m.slice(1).reduce((a, x) => a * 256 + Number(x), 0) : undefined;
}

function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split("/");
  const a = ipToInt(ip);
  const b = ipToInt(base);
  if (a === undefined || b === undefined) return false;
  const block = 2 ** (32 - Number(bits ?? 32));
  return Math.floor(a / block) === Math.floor(b / block);
}

/** Whether a rule's peer list admits the other end (`policyNs`: the policy's namespace). */
function peerMatches(ctx: SimContext, peers: PolicyPeer[] | undefined, other: Endpoint, policyNs: string) {
  if (!peers?.length) return true;
  const pod = podOf(other);
  const ip = ipOf(other);
  return peers.some((p) => {
    if (p.ipBlock) {
      if (!ip || !inCidr(ip, p.ipBlock.cidr)) return false;
      return !(p.ipBlock.except ?? []).some((x) => inCidr(ip, x));
    }
    if (!pod) return false;
    const ns = pod.metadata.namespace;
    const nsOk = p.namespaceSelector
      ? selectorMatches(p.namespaceSelector, nsLabels(ctx, ns))
      : ns === policyNs;
    const podOk = p.podSelector ? selectorMatches(p.podSelector, pod.metadata.labels ?? {}) : true;
    return nsOk && podOk;
  });
}

/** A named port is the destination pod's container port of that name (and protocol). */
function portMatches(ports: PolicyPort[] | undefined, f: Flow): boolean {
  if (!ports?.length) return true;
  const protocol = f.protocol ?? "TCP";
  const dst = podOf(f.to);
  return ports.some((p) => {
    if ((p.protocol ?? "TCP") !== protocol) return false;
    if (p.port === undefined) return true;
    let n = Number(p.port);
    if (!/^\d+$/.test(String(p.port))) {
      const named = (dst?.spec?.containers ?? [])
        .flatMap((c) => c.ports ?? [])
        .find((cp) => cp.name === p.port && (cp.protocol ?? "TCP") === protocol);
      if (!named) return false;
      n = Number(named.containerPort);
    }
    return p.endPort !== undefined ? f.port >= n && f.port <= p.endPort : f.port === n;
  });
}

/** The policy that rejects the flow, if one side's policies admit it not: "egress" or "ingress". */
export function blockedBy(ctx: SimContext, f: Flow): "egress" | "ingress" | undefined {
  const src = podOf(f.from);
  const dst = podOf(f.to);
  if (src && dst && src.metadata.uid === dst.metadata.uid) return undefined;
  if (src) {
    const pols = policiesFor(ctx, src, "Egress");
    const ok =
      !pols.length ||
      pols.some((p) =>
        (p.spec?.egress ?? []).some(
          (r) => peerMatches(ctx, r.to, f.to, p.metadata.namespace!) && portMatches(r.ports, f),
        ),
      );
    if (!ok) return "egress";
  }
  // kube-router: "from local node" is accepted before any policy chain
  if (dst && !("node" in f.from)) {
    const pols = policiesFor(ctx, dst, "Ingress");
    const ok =
      !pols.length ||
      pols.some((p) =>
        (p.spec?.ingress ?? []).some(
          (r) => peerMatches(ctx, r.from, f.from, p.metadata.namespace!) && portMatches(r.ports, f),
        ),
      );
    if (!ok) return "ingress";
  }
  return undefined;
}

/** CoreDNS as a policy sees it: k3s runs it in kube-system with the label k8s-app=kube-dns. */
const COREDNS: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "coredns", namespace: "kube-system", uid: "coredns", labels: { "k8s-app": "kube-dns" } },
  spec: {
    containers: [
      {
        name: "coredns",
        image: "rancher/mirrored-coredns-coredns",
        ports: [{ name: "dns", containerPort: 53, protocol: "UDP" }],
      },
    ],
  },
  status: { podIP: "10.42.0.2" },
};

/**
 * Whether the pod's egress policies keep its DNS queries from CoreDNS (UDP 53 rejected: the
 * resolver fails at once, "Temporary failure in name resolution").
 */
export function dnsBlocked(ctx: SimContext, pod: Pod): boolean {
  if (!policiesFor(ctx, pod, "Egress").length) return false;
  return blockedBy(ctx, { from: { pod }, to: { pod: COREDNS }, port: 53, protocol: "UDP" }) !== undefined;
}

/** Whether any policy exists in a namespace (a cheap test before resolving flows). */
export function anyPolicy(ctx: SimContext, ns: string | undefined): boolean {
  return ctx.store.list(NETWORK_POLICY, ns).length > 0;
}
