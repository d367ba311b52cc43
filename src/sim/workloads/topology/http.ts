// What a service answers over HTTP, and how long the packets of a request take. The answer comes
// from the page table (toolboxes.yaml `http`); a service with `routes` (the entry services) makes
// the calls of the route that matches, each drawn from the traffic model (calls.ts), and fails
// the page as its handler does: an application answers its error page at the first callee that
// fails (soft callees' failures are ignored), a proxy passes its upstream's answer through or
// answers its own 502/504 when the upstream cannot be reached. A service without routes answers
// with its failure rate from the traffic model. The time is its own work plus its calls'.
// netem delay/loss apply to the handshake (lost SYNs retried after 1, 2, 4... s, giving up after
// ~127 s as Linux does) and to the exchange (RTO from 200 ms).

import type { ServiceModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import type { Pod } from "../../core/objects.js";
import { imageTools } from "../../userland/toolbox.js";
import { POD_RTT_MS } from "./calls.js";
import { draw, type Impairment, NONE, oneWay } from "./impairments.js";
import { type Listener, listeners } from "./listeners.js";
import { routeResult } from "./routes.js";
import { scriptRoutes, scriptServes } from "./script-routes.js";
import { trafficOf } from "./traffic.js";

interface Page {
  method?: string;
  app?: string;
  lang?: string;
  process?: string;
  path: string;
  status?: number;
  type?: string;
  body: string;
  failStatus?: number;
  failBody?: string;
  /** A proxy's answer when its upstream times out (nginx's 504). */
  timeoutStatus?: number;
  timeoutBody?: string;
}

interface HttpDoc {
  pages: Page[];
  server: { match: string; version: string; header?: string }[];
}

/** The page table of the cluster's stages (toolboxes.yaml `http`). */
const httpDoc = (ctx: SimContext) => ctx.stages.toolboxes.http as HttpDoc;

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
  302: "Found",
  404: "Not Found",
  405: "Method Not Allowed",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export const reasonOf = (status: number) => REASONS[status] ?? "Unknown";

const pretty = (app: string) =>
  app
    .replace(/^ts-/, "")
    .split("-")
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(" ");

/** The page of the table that answers `path` for this listener. */
function pageOf(ctx: SimContext, m: ServiceModel | undefined, process: string, path: string): Page {
  return httpDoc(ctx).pages.find(
    (pg) =>
      (!pg.app || pg.app === m?.key) &&
      (!pg.lang || (m && new RegExp(pg.lang).test(m.lang))) &&
      (!pg.process || pg.process === process) &&
      new RegExp(`^(?:${pg.path})$`).test(path),
  )!;
}

/**
 * The status a page of `m` answers when a call of its route failed that way, as `answer` gives it:
 * a proxy's 504 for an upstream that timed out, the upstream's own answer (`upstream`) when it
 * answered an error through a proxy, else the page's failure status (the frontend's 500).
 */
export function failedStatus(
  ctx: SimContext,
  m: ServiceModel,
  path: string,
  o: "refused" | "dns" | "timeout" | "reset" | "error",
  upstream?: ServiceModel,
): number {
  const page = pageOf(ctx, m, "", path) as Page | undefined;
  const proxy = m.routes.find((r) => r.path.test(path))?.proxy ?? false;
  if (proxy && o === "timeout" && page?.timeoutStatus !== undefined) return page.timeoutStatus;
  if (proxy && o === "error" && upstream) {
    const up = pageOf(ctx, upstream, "", path) as Page | undefined;
    if (up?.failStatus !== undefined) return up.failStatus;
  }
  return page?.failStatus ?? 500;
}

/** What the listener answers to `method path`. */
export function answer(
  ctx: SimContext,
  pod: Pod,
  l: Listener,
  method: string,
  path: string,
  rnd: () => number,
  depth = 0,
): Answer {
  const m = l.model;
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === l.container);
  const process = imageTools(String(spec?.image ?? "")).runtime;
  const lang = m?.lang ?? process;
  // a server whose script the pod's command gave answers the paths that script tests for, and
  // its handler's 404 for the rest (script-routes.ts); a path it serves that the table does not
  // know gets its plain answer
  const served = l.script ? scriptRoutes(l.script) : undefined;
  const own = served ? scriptServes(served, path) : undefined;
  let page = pageOf(ctx, m, process, own === false ? "\0" : path);
  if (own && (page.status ?? 200) === 404) page = { path, type: "text/plain", body: "OK" };
  const st = m
    ? trafficOf(ctx)
        .state(pod.metadata.namespace ?? "")
        .services.get(m.key)
    : undefined;
  const upstream = (p: Pod, um: ServiceModel, d: number) => {
    const ul = listeners(ctx, p, ctx.clock.now()).find((x) => x.port === um.port)!;
    const a = answer(ctx, p, ul, method, path, rnd, d);
    const type = a.headers.find((h) => h[0] === "Content-Type")?.[1] ?? "text/plain";
    return { status: a.status, body: a.body, type, serverMs: a.serverMs };
  };
  const routed =
    m && own !== false ? routeResult(ctx, pod, m, method, path, rnd, upstream, depth) : undefined;
  let status: number;
  let body: string;
  let type = page.type ?? "text/plain";
  let serverMs = (st?.latencyMs ?? 1) * (0.85 + rnd() * 0.3);
  if (!routed) {
    // no route: the page as the service's health has it (a service with routes calls nobody
    // for a path none of them matches)
    const fail = page.failStatus !== undefined && !m?.routes.length && rnd() < (st?.failRate ?? 0);
    status = fail ? page.failStatus! : (page.status ?? 200);
    body = fail ? (page.failBody ?? "") : page.body;
  } else if (routed.kind === "upstream") {
    ({ status, body, type } = routed.answer);
    serverMs = routed.ms;
  } else if (routed.kind === "failed") {
    const timedOut = routed.timeout && page.timeoutStatus !== undefined;
    status = (timedOut ? page.timeoutStatus : page.failStatus) ?? 500;
    body = (timedOut ? page.timeoutBody : page.failBody) ?? "";
    serverMs = routed.ms;
  } else {
    status = routed.status;
    // a redirect (Go's w.WriteHeader(302)) has no body
    body = status >= 300 && status < 400 ? "" : page.body;
    serverMs = routed.ms * (0.85 + rnd() * 0.3);
  }
  const wall = new Date(ctx.clock.toWall(ctx.clock.now()));
  const vars: Record<string, string> = {
    time: wall.toISOString().replace("Z", "000+00:00"),
    path,
    app: pretty(m?.key ?? ""),
  };
  body = body.replace(/\{(time|path|app)\}/g, (_a, k: string) => vars[k]);
  const server = httpDoc(ctx).server.find((s) => new RegExp(s.match).test(lang))!;
  const headers: [string, string][] = [
    ...(server.header ? ([["Server", server.header]] as [string, string][]) : []),
    ["Date", wall.toUTCString()],
    ["Content-Type", type],
    ["Content-Length", String(Buffer.byteLength(body))],
  ];
  return {
    status,
    reason: reasonOf(status),
    version: server.version,
    headers,
    body: method === "HEAD" ? "" : body,
    serverMs,
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
