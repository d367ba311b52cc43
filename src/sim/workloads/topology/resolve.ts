// Where a connection from a pod to host:port goes, as k3s carries it; one resolver for the
// applications' calls (calls.ts) and for curl/wget in `kubectl exec` (request.ts):
//   name  -> CoreDNS (names.ts): NXDOMAIN or a lookup that times out fails the call;
//   IP    -> a pod IP goes to that pod; a ClusterIP goes through kube-proxy: the Service's port
//            must exist (else nothing answers the SYN: connect timeout), its Endpoints must have
//            a ready address (else kube-proxy's REJECT: refused at once), and the connection goes
//            to one of them, on the endpoint's port (the targetPort, resolved per pod by the
//            Endpoints controller); a NodePort on a node IP the same;
//   pod   -> the pod's network: NetworkChaos partition drops every packet (timeout), a
//            NetworkPolicy rejects (netpol.ts: refused), nothing listening on the port refuses.
// The HTTP layer on top (HTTPChaos) is `httpFaults`, for requests over a connection opened after
// the injection.

import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import type { HttpFault } from "../../context/faults.js";
import type { Endpoints, Pod, Service, ServicePort } from "../../core/objects.js";
import { loopbackOnly } from "../../userland/mysqld-options.js";
import { type Impairment, oneWay } from "./impairments.js";
import { type Listener, listeners } from "./listeners.js";
import { type Asker, type Holder, resolveNow, whoHas } from "./names.js";
import { blockedBy, dnsBlocked, type Endpoint } from "./netpol.js";

export interface Landing {
  pod: Pod;
  port: number;
}

export type Placement =
  | { kind: "dns"; timeout: boolean }
  | { kind: "refused"; ip: string }
  | { kind: "blackhole"; ip: string }
  | { kind: "unreachable"; ip: string }
  /** The pods kube-proxy spreads connections over, evenly. */
  | { kind: "pods"; ip: string; pods: Landing[] };

/** Where host:port leads from the caller's pod (no time passes: the lookup's cost is lookup()'s). */
export function place(p: Asker, host: string, port: number): Placement {
  if (needsDns(p, host) && dnsBlocked(p.ctx, p.pod)) return { kind: "dns", timeout: true };
  const r = resolveNow(p, host);
  if ("error" in r) return { kind: "dns", timeout: r.error === "timeout" };
  const ip = r.ips[0];
  return placeIp(p.ctx, p.pod, whoHas(p, ip), ip, port);
}

/** Whether resolving the name asks CoreDNS (not an address, localhost or the pod's own name). */
export function needsDns(p: Asker, host: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host === "localhost") return false;
  return host !== (p.pod.spec?.hostname ?? p.pod.metadata.name);
}

/** The Endpoints' ready addresses for one Service port, each with the port it forwards to. */
function endpointsOf(ctx: SimContext, svc: Service, sp: ServicePort): Landing[] {
  const ns = svc.metadata.namespace;
  const ep = ctx.store.get(R("Endpoints"), ns, svc.metadata.name!) as Endpoints | undefined;
  const out: Landing[] = [];
  for (const s of ep?.subsets ?? []) {
    const ports = s.ports ?? [];
    const match =
      ports.find((x) => (x.name ?? "") === (sp.name ?? "")) ?? (ports.length === 1 ? ports[0] : undefined);
    if (!match?.port) continue;
    for (const a of s.addresses ?? []) {
      const name = a.targetRef?.name;
      const pod = name
        ? (ctx.store.get(R("Pod"), a.targetRef?.namespace ?? ns, name) as Pod | undefined)
        : undefined;
      const byIp =
        pod ??
        (ctx.store.list(R("Pod")) as Pod[]).find(
          (x) => x.status?.podIP === a.ip && !x.metadata.deletionTimestamp,
        );
      if (byIp) out.push({ pod: byIp, port: Number(match.port) });
    }
  }
  return out;
}

/** What happens to a connection to ip:port, given what holds the IP. */
export function placeIp(ctx: SimContext, from: Pod, who: Holder, ip: string, port: number): Placement {
  if (who.kind === "pod") return { kind: "pods", ip, pods: [{ pod: who.pod, port }] };
  if (who.kind === "loopback") return { kind: "pods", ip, pods: [{ pod: from, port }] };
  if (who.kind === "unassigned") return { kind: "unreachable", ip };
  if (who.kind === "external" || (who.kind === "service" && !who.svc)) return { kind: "blackhole", ip };
  let svc: Service | undefined;
  let sp: ServicePort | undefined;
  if (who.kind === "node") {
    svc = (ctx.store.list(R("Service")) as Service[]).find((s) =>
      (s.spec?.ports ?? []).some((x) => x.nodePort === port),
    );
    sp = svc?.spec?.ports?.find((x) => x.nodePort === port);
    // nothing listens on that port of the node: its kernel answers RST
    if (!svc || !sp) return { kind: "refused", ip };
  } else {
    svc = who.svc;
    sp = svc?.spec?.ports?.find((x) => x.port === port);
    // kube-proxy has no rule for a port the Service lacks: the SYN goes unanswered
    if (!svc || !sp) return { kind: "blackhole", ip };
  }
  const pods = endpointsOf(ctx, svc, sp);
  // a Service without ready endpoints: kube-proxy's REJECT rule ("has no endpoints")
  return pods.length ? { kind: "pods", ip, pods } : { kind: "refused", ip };
}

export type Verdict =
  /** RST: nothing listens, or a NetworkPolicy rejects (kube-router's REJECT). */
  | { kind: "refused"; why: "closed" | "policy" }
  /** Every packet is dropped (NetworkChaos partition): the connection never opens. */
  | { kind: "timeout" }
  | { kind: "open"; listener: Listener; go: Impairment; back: Impairment };

export interface OpenOpts {
  /** The connection was opened before (a pooled client's): policies no longer look at it. */
  established?: boolean;
  /** The node itself connects (the kubelet's probes): kube-router accepts it into any pod. */
  fromNode?: boolean;
}

/** A TCP connection from a pod to one landing: whether it opens, and the path both ways. */
export function open(ctx: SimContext, from: Pod, to: Landing, opts: OpenOpts = {}): Verdict {
  const same = from.metadata.uid === to.pod.metadata.uid;
  const go = same ? NO_LOSS : oneWay(ctx.faults, from, to.pod);
  const back = same ? NO_LOSS : oneWay(ctx.faults, to.pod, from);
  if (go.loss >= 1 || back.loss >= 1) return { kind: "timeout" };
  if (!opts.established) {
    const src: Endpoint = opts.fromNode ? { node: true } : { pod: from };
    if (blockedBy(ctx, { from: src, to: { pod: to.pod }, port: to.port }))
      return { kind: "refused", why: "policy" };
  }
  const l = listeners(ctx, to.pod, ctx.clock.now()).find((x) => x.port === to.port);
  // a socket bound to the loopback address takes no connection to the pod's own IP
  if (!l || loopbackOnly(l.address)) return { kind: "refused", why: "closed" };
  return { kind: "open", listener: l, go, back };
}

const NO_LOSS: Impairment = { delayMs: 0, jitterMs: 0, loss: 0 };

/** The tproxy's WildMatch: `*` any run of characters, `?` one. */
function wildMatch(pattern: string, s: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${re}$`).test(s);
}

export interface HttpEffect {
  /** The request is cut before the server sees it, or the response after (connection closed). */
  abort?: "request" | "response";
  delayMs: number;
  /** A response rule replaced the status. */
  code?: number;
}

/**
 * HTTPChaos on the landing pod for one HTTP/1 request over a connection opened at `openedAt`:
 * the tproxy only takes new connections (iptables TPROXY, with `-m socket` diverting packets of
 * sockets that already exist; chaos-tproxy's iptables.rs), and only HTTP/1 (a connection it cannot
 * parse is passed through, serve_http_with_error_return). Abort returns an error from the handler,
 * so the connection is closed without a response (handler/http/action.rs, "Abort applied").
 */
export function httpFaults(
  ctx: SimContext,
  to: Landing,
  req: { method: string; path?: string; openedAt: number; status?: number },
): HttpEffect {
  const out: HttpEffect = { delayMs: 0 };
  for (const r of ctx.faults.forPod(to.pod.metadata.uid)) {
    const f = r.fault as HttpFault;
    if (f.kind !== "http" || r.since > req.openedAt) continue;
    if (f.port && f.port !== to.port) continue;
    if (f.method && f.method.toUpperCase() !== req.method.toUpperCase()) continue;
    // a call whose path the model does not know counts as matching
    if (f.path && req.path !== undefined && !wildMatch(f.path, req.path)) continue;
    if (f.target === "Response" && f.code !== undefined && req.status !== undefined && f.code !== req.status)
      continue;
    if (f.abort) out.abort ??= f.target === "Request" ? "request" : "response";
    out.delayMs += f.delayMs ?? 0;
    if (f.target === "Response" && f.replaceCode !== undefined) out.code = f.replaceCode;
  }
  return out;
}
