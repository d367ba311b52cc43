// An HTTP request from one pod to an address, as the cluster carries it: kube-proxy sends a
// ClusterIP's port to a Ready endpoint picked at random (no endpoint: the REJECT rule refuses at
// once; a port the Service lacks: packets vanish, connect times out); NodePorts on node IPs the
// same; the pod's container must listen on the port (listeners.ts), else it is refused; the
// answer comes from the page table (toolboxes.yaml `http`) with the service's time and failure
// rate from the traffic model. netem delay/loss apply to the handshake (lost SYNs retried after
// 1, 2, 4... s, giving up after ~127 s as Linux does) and to the exchange (RTO from 200 ms).

import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import { podReady } from "../../core/meta.js";
import type { Node, Pod, Service, ServicePort } from "../../core/objects.js";
import { imageTools } from "../../userland/toolbox.js";
import { POD_RTT_MS } from "./calls.js";
import { draw, type Impairment, NONE, oneWay } from "./impairments.js";
import type { Listener } from "./listeners.js";
import { trafficOf } from "./traffic.js";

interface Page {
  app?: string;
  lang?: string;
  process?: string;
  path: string;
  status?: number;
  type?: string;
  body: string;
  failStatus?: number;
  failBody?: string;
}

interface HttpDoc {
  pages: Page[];
  server: { match: string; version: string; header?: string }[];
}

/** The page table of the cluster's stages (toolboxes.yaml `http`). */
const httpDoc = (ctx: SimContext) => ctx.stages.toolboxes.http as HttpDoc;

export type Route =
  | { pod: Pod; port: number }
  | { refused: true }
  | { blackhole: true }
  | { unreachable: true };

/** Where a connection to ip:port ends up. `who` is what holds the IP (dns.ts whoHas). */
export function route(
  ctx: SimContext,
  who: { kind: string; pod?: Pod; svc?: Service; node?: Node },
  port: number,
): Route {
  if (who.kind === "pod" && who.pod) return { pod: who.pod, port };
  if (who.kind === "unassigned") return { unreachable: true };
  if (who.kind === "external" || (who.kind === "service" && !who.svc)) return { blackhole: true };
  let svc = who.svc;
  let sp: ServicePort | undefined;
  if (who.kind === "node") {
    svc = (ctx.registry.list(R("Service"), undefined) as Service[]).find((s) =>
      (s.spec?.ports ?? []).some((x) => x.nodePort === port),
    );
    sp = svc?.spec.ports?.find((x) => x.nodePort === port);
    if (!sp) return { refused: true };
  } else sp = svc?.spec?.ports?.find((x) => x.port === port);
  if (!svc || !sp) return { blackhole: true };
  const sel = svc.spec?.selector ?? {};
  const ready = (ctx.registry.list(R("Pod"), svc.metadata.namespace) as Pod[]).filter(
    (p) =>
      Object.entries(sel).every(([k, v]) => p.metadata.labels?.[k] === v) &&
      p.status?.podIP &&
      !p.metadata.deletionTimestamp &&
      podReady(p),
  );
  if (!Object.keys(sel).length || !ready.length) return { refused: true };
  const pod = ready[Math.floor(ctx.rng.next() * ready.length)];
  const tp = sp.targetPort ?? sp.port;
  const target =
    typeof tp === "number" || /^\d+$/.test(String(tp))
      ? Number(tp)
      : Number(
          (pod.spec.containers ?? []).flatMap((c) => c.ports ?? []).find((x) => x.name === tp)?.containerPort,
        );
  return Number.isFinite(target) ? { pod, port: target } : { refused: true };
}

export interface Answer {
  status: number;
  reason: string;
  version: string;
  headers: [string, string][];
  body: string;
  /** Time the server takes (its own work and its calls). */
  serverMs: number;
}

const REASONS: Record<number, string> = {
  200: "OK",
  404: "Not Found",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const pretty = (app: string) =>
  app
    .replace(/^ts-/, "")
    .split("-")
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(" ");

/** What the listener answers to `method path`. */
export function answer(
  ctx: SimContext,
  pod: Pod,
  l: Listener,
  method: string,
  path: string,
  rnd: () => number,
): Answer {
  const m = l.model;
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === l.container);
  const process = imageTools(String(spec?.image ?? "")).runtime;
  const lang = m?.lang ?? process;
  const page = httpDoc(ctx).pages.find(
    (pg) =>
      (!pg.app || pg.app === m?.key) &&
      (!pg.lang || (m && new RegExp(pg.lang).test(m.lang))) &&
      (!pg.process || pg.process === process) &&
      new RegExp(`^(?:${pg.path})$`).test(path),
  )!;
  const st = m
    ? trafficOf(ctx)
        .state(pod.metadata.namespace ?? "")
        .services.get(m.key)
    : undefined;
  const fail = page.failStatus !== undefined && rnd() < (st?.failRate ?? 0);
  const status = fail ? page.failStatus! : (page.status ?? 200);
  const wall = new Date(ctx.clock.toWall(ctx.clock.now()));
  const vars: Record<string, string> = {
    time: wall.toISOString().replace("Z", "000+00:00"),
    path,
    app: pretty(m?.key ?? ""),
  };
  const body = (fail ? (page.failBody ?? "") : page.body).replace(
    /\{(time|path|app)\}/g,
    (_a, k: string) => vars[k],
  );
  const server = httpDoc(ctx).server.find((s) => new RegExp(s.match).test(lang))!;
  const headers: [string, string][] = [
    ...(server.header ? ([["Server", server.header]] as [string, string][]) : []),
    ["Date", wall.toUTCString()],
    ["Content-Type", page.type ?? "text/plain"],
    ["Content-Length", String(Buffer.byteLength(body))],
  ];
  return {
    status,
    reason: REASONS[status] ?? "Unknown",
    version: server.version,
    headers,
    body: method === "HEAD" ? "" : body,
    serverMs: (st?.latencyMs ?? 1) * (0.85 + rnd() * 0.3),
  };
}

/** Time for a TCP handshake over the path (Infinity: the kernel gave up after its SYN retries). */
export function handshakeMs(go: Impairment, back: Impairment, rnd: () => number): number {
  let t = 0;
  for (let k = 0; k <= 6; k++) {
    if (rnd() >= go.loss && rnd() >= back.loss) return t + POD_RTT_MS + draw(go, rnd) + draw(back, rnd);
    t += 1000 * 2 ** k;
  }
  return Number.POSITIVE_INFINITY;
}

/** Time for a request and its response on an established connection. */
export function exchangeMs(go: Impairment, back: Impairment, rnd: () => number): number {
  let t = 0;
  for (let k = 0; k < 15; k++) {
    if (rnd() >= go.loss && rnd() >= back.loss) return t + POD_RTT_MS + draw(go, rnd) + draw(back, rnd);
    t += Math.min(120_000, 200 * 2 ** k);
  }
  return Number.POSITIVE_INFINITY;
}

/** The impairments both ways between two pods (none within a pod). */
export function paths(ctx: SimContext, from: Pod, to: Pod): [Impairment, Impairment] {
  if (from.metadata.uid === to.metadata.uid) return [NONE, NONE];
  return [oneWay(ctx.faults, from, to), oneWay(ctx.faults, to, from)];
}
