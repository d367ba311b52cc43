// What a service writes while it runs, from its log templates: every sample period a pod that
// handles (or, for a load generator, sends) traffic logs one request, the way that request went:
// the request lines when every call it made succeeded, else the lines of the first dependency
// that refused, timed out or failed it ({dep} = the Service it dialed). A service whose request
// lines say the status ({status}: the frontend's logging middleware, the gateway's log filter)
// writes them for a failed request too, with the status it answered, around the failure's lines
// (those before the first {status} line as the request starts, the rest as it ends). A router
// (calls spread over its routes, at most one per request: the gateway) sends each request to one
// callee and names that route ({method} {path}); a caller that retries (settings' retries) sends
// a failed call again before it gives up. A page that writes through a callee whose store refuses
// writes (store-writes.ts: the frontend's add-to-cart under redis' maxmemory) fails for that
// share of its calls, in its handler's words. A callee some of whose calls are a method it logs
// in words of its own (steps.ts: ShipOrder) writes those for that share of its requests.
// Registry and broker
// connections (nacos, rabbitmq), and the store pool of a service without traffic, are checked
// every period whatever the load, and a disk under IOChaos shows as ioStall lines. A quiet service logs a request only as often as it gets one.

import { type Edge, type ServiceModel, softOnly, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { STAMPS } from "../../core/log-stamps.js";
import type { Pod } from "../../core/objects.js";
import { type Writer, walk } from "./answers.js";
import { type CallOutcome, drawOutcome, type EdgeView, edgeView, outcomeMs } from "./calls.js";
import { failedStatus } from "./http.js";
import { ioFaultsOnMounts } from "./impairments.js";
import { ownMs } from "./own-time.js";
import type { SvcState } from "./service-state.js";
import { javaDuration, settingOf } from "./settings.js";
import { rpcLines, stepEdge } from "./steps.js";
import { authLines } from "./store-auth.js";
import { OOM_ERR, refusalLines, WRITE_WORDS, writeRoutes, writeShare } from "./store-clients.js";
import { refusedShare } from "./store-writes.js";
import type { Traffic } from "./traffic.js";

export const PLACEHOLDERS =
  /\{(time|springTime|pythonTime|redisTime|goLogTime|tornadoTime|clfTime|nginxTime|start|epochMs|pod|podIp|port|dep|depPort|depIp|var|what|ms|seconds|jvmSeconds|id|method|path|timeout|bind|err|cause|rpc|status)\}/g;

export type Vars = Partial<
  Record<
    | "time"
    | "start"
    | "method"
    | "path"
    | "epochMs"
    | "pod"
    | "podIp"
    | "port"
    | "dep"
    | "depPort"
    | "depIp"
    | "var"
    | "what"
    | "ms"
    | "seconds"
    | "jvmSeconds"
    | "id"
    | "timeout"
    | "bind"
    | "err"
    | "cause"
    | "rpc"
    | "status",
    string | number
  >
>;

/** Fill a template's placeholders; anything else in braces (JSON) is left alone. */
export function render(lines: string[] | undefined, vars: Vars): string[] {
  const at = vars.time === undefined ? Number.NaN : Date.parse(String(vars.time));
  return (lines ?? []).map((l) =>
    l.replace(PLACEHOLDERS, (all, k: string) => {
      const stamp = STAMPS[k];
      if (stamp) return Number.isNaN(at) ? all : stamp(at);
      const v = vars[k as keyof Vars];
      return v === undefined ? all : String(v);
    }),
  );
}

/** The vars every line of a pod may use. */
export function baseVars(
  ctx: SimContext,
  pod: Pod,
  m: ServiceModel | undefined,
  now: number,
  rnd: () => number,
): Vars {
  const wall = ctx.clock.toWall(now);
  return {
    time: new Date(wall).toISOString(),
    start: new Date(wall).toISOString(),
    method: "GET",
    path: "/",
    status: 200,
    epochMs: Math.floor(wall),
    pod: pod.metadata.name,
    podIp: pod.status?.podIP ?? "",
    port: m?.port ?? "",
    id: uuid(rnd),
  };
}

/** How answers.ts fills a handler's lines: these templates, a fresh id for each call's own. */
const writer = (rnd: () => number): Writer => ({ fill: render, newId: () => uuid(rnd) });

function uuid(rnd: () => number): string {
  const h = Array.from({ length: 4 }, () =>
    Math.floor(rnd() * 2 ** 32)
      .toString(16)
      .padStart(8, "0"),
  ).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[Number.parseInt(h[16], 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The lines of a failed call: the store's, or the call's for that kind of failure. */
export function failureLines(m: ServiceModel, e: Edge, o: CallOutcome, v?: EdgeView): string[] | undefined {
  if (e.store) return (o === "timeout" ? m.logs.storeTimeout : m.logs.storeError)?.[e.store];
  const l = m.logs;
  switch (o) {
    case "timeout":
      return l.dependencyTimeout;
    case "refused":
      return l.dependencyRefused ?? l.dependencyError;
    case "dns":
      return (v?.dnsAgain ? l.dependencyDnsTimeout : undefined) ?? l.dependencyDns ?? l.dependencyError;
    case "reset":
      return l.dependencyReset ?? l.dependencyError;
    default:
      return l.dependencyError;
  }
}

/** The placeholders of a call's lines: what the caller dialled and reached, how long it took. */
/**
 * The request of an entry service's page that makes a call to `callee` (its method and path, as
 * the frontend's request log names them): the literal route that calls it first, else any.
 */
export function requestOf(m: ServiceModel, callee: string): { method: string; path: string } | undefined {
  const literal = m.routes
    .map((r) => ({
      r,
      path: r.path.source
        .replace(/^\^\(\?:/, "")
        .replace(/\)\$$/, "")
        .replace(/\\\//g, "/"),
    }))
    // a route of every path under a prefix (the gateway's /api/v1/travelservice/.*): the prefix
    .map((x) => (/^[^[\]()*+?\\|^$]*\.\*$/.test(x.path) ? { ...x, path: x.path.slice(0, -2) } : x))
    .filter((x) => !/[[\]()*+?\\|^$]/.test(x.path));
  const hit =
    literal.find((x) => x.r.calls[0] === callee) ??
    literal.find((x) => x.r.calls.includes(callee) || x.r.soft.includes(callee));
  return hit ? { method: hit.r.methods[0], path: hit.path } : undefined;
}

/** A request's lines: it started `ms` before it completed. */
export function requestVars(vars: Vars, ms: number): Vars {
  const end = Date.parse(String(vars.time));
  return { ...vars, ms, start: Number.isNaN(end) ? vars.time : new Date(end - ms).toISOString() };
}

export function callVars(vars: Vars, e: Edge, v: EdgeView, ms: number, m?: ServiceModel): Vars {
  return {
    ...vars,
    ...(m ? requestOf(m, e.to) : undefined),
    dep: v.dep,
    depPort: v.depPort,
    depIp: v.depIp,
    what: e.dial.what ?? "",
    ms: Math.round(ms),
    // the caller's timeout as java.time.Duration prints it (Spring Cloud Gateway's 504)
    timeout: javaDuration(v.timeoutMs),
  };
}

/** The lines of a failed call: a store's refusal for want of its password has its own (store-auth.ts). */
function linesOf(
  ctx: SimContext,
  m: ServiceModel,
  e: Edge,
  o: CallOutcome,
  v: EdgeView,
  rnd: () => number,
): string[] | undefined {
  const auth = o === "error" && !!e.store && v.denied > 0 && rnd() * v.p.error < v.denied;
  if (auth && v.refusal === "MAXCLIENTS")
    return refusalLines(ctx, m, e, v.refusal) ?? failureLines(m, e, o, v);
  if (auth) return authLines(ctx, m, e) ?? failureLines(m, e, o, v);
  return failureLines(m, e, o, v);
}

/**
 * What the callee answered when it failed the call with an error ({cause}): its handler's own
 * words for the callee of its own that failed (answers.ts), else the caller's client's words.
 */
function causeOf(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  e: Edge,
  o: CallOutcome,
  vars: Vars,
  rnd: () => number,
): string {
  if (o !== "error" || e.store) return "";
  const callee = services.get(e.to);
  if (callee?.model.errors?.steps.length && callee.serving.length) {
    const there = callee.serving[Math.floor(rnd() * callee.serving.length)];
    const w = walk(ctx, services, callee.model, there, vars, rnd, writer(rnd), true);
    if (w.says !== undefined) return w.says;
  }
  return render([m.errors?.client.error ?? ""], { ...vars, rpc: callee?.model.rpc ?? "" })[0];
}

export interface SampleOpts {
  /** Requests per second this pod handles or sends. */
  rate: number;
  periodMs: number;
}

/** The lines of one sample period of a running, started pod. */
export function sample(
  ctx: SimContext,
  traffic: Traffic,
  m: ServiceModel,
  pod: Pod,
  now: number,
  rnd: () => number,
  o: SampleOpts,
): string[] {
  const ns = pod.metadata.namespace ?? "";
  const sys = systemOf(m);
  const st = traffic.state(ns);
  // a request is logged while it is served, not on the sampling tick: within the second before
  const at = ctx.clock.toWall(now) - Math.floor(rnd() * 900);
  const stamp = new Date(at).toISOString();
  const vars = { ...baseVars(ctx, pod, m, now, rnd), time: stamp, start: stamp, epochMs: Math.floor(at) };
  const out: string[] = [];
  const edges = sys.edges.get(m.key) ?? [];
  const view = (e: Edge) => edgeView(ctx, st.services, m, pod, e);
  // background connections: service registry, message broker, and an idle service's store pool
  for (const e of edges.filter((x) => x.perReq === 0 || (x.store && o.rate <= 0))) {
    const v = view(e);
    if (v.none) continue;
    const res = drawOutcome(v, rnd);
    if (res !== "ok")
      out.push(...render(linesOf(ctx, m, e, res, v, rnd), callVars(vars, e, v, outcomeMs(v, res))));
  }
  const spec = (pod.spec?.containers ?? []).find((c) => c.name === m.container);
  for (const f of spec ? ioFaultsOnMounts(ctx.faults, pod, spec) : [])
    if (f.action === "latency" && rnd() < (f.percent ?? 100) / 100)
      out.push(...render(m.logs.ioStall, { ...vars, ms: f.delayMs ?? 0 }));
  // one request, if one came in this period
  const expected = o.rate * (o.periodMs / 1000);
  if (expected <= 0 || (expected < 1 && rnd() >= expected)) return out;
  // its own time and the wait for a worker (capacity.ts)
  let spent = ownMs(ctx, m, pod, traffic.podRps(pod, m)) + (st.services.get(m.key)?.queueMs ?? 0);
  // a handler that words its failures per callee (answers.ts) logs what it did, and on a failure
  // only what it logs itself (PlaceOrder returns its error to the caller, which logs it); one with
  // stores logs its store client's failures and refusals in the loop below (store-clients.ts)
  if (m.errors?.steps.length && !Object.keys(m.stores).length) {
    const w = walk(ctx, st.services, m, pod, vars, rnd, writer(rnd));
    const ms = Math.max(1, Math.round(spent + w.ms));
    return [...out, ...render(m.logs.request, requestVars(vars, ms)), ...w.lines];
  }
  const calls = edges.filter((x) => x.perReq > 0 && !x.back);
  // a router sends each request to one of its callees: the route of that callee
  const router =
    m.routes.length > 0 && calls.length > 1 && calls.reduce((a, x) => a + x.perReq, 0) <= 1 + 1e-9;
  let picked: Edge | undefined;
  for (let x = router ? rnd() : -1, i = 0; x >= 0 && i < calls.length; x -= calls[i].perReq, i++)
    if (x < calls[i].perReq) picked = calls[i];
  const page = picked ? requestOf(m, picked.to) : undefined;
  const req: Vars = page
    ? {
        ...vars,
        ...page,
        status:
          m.routes.find((r) => r.methods.includes(page.method) && r.path.test(page.path))?.status ?? 200,
      }
    : vars;
  const retries = m.settings.retries ? (settingOf(ctx, pod, m, "retries") ?? 0) : 0;
  for (const e of calls) {
    if (router ? e !== picked : rnd() >= e.perReq) continue;
    const v = view(e);
    if (v.none) continue;
    let res = drawOutcome(v, rnd);
    let ms = outcomeMs(v, res);
    // a failed call sent again, up to the caller's retries: the request fails if every one does
    for (let n = retries; res !== "ok" && n > 0; n--) {
      res = drawOutcome(v, rnd);
      ms += outcomeMs(v, res);
    }
    // a write the store refuses for its maxmemory (store-clients.ts): the call's own lines
    if (res === "ok" && v.oom > 0 && rnd() * v.p.ok < v.oom) {
      const oom = refusalLines(ctx, m, e, "OOM");
      if (oom) return [...out, ...render(oom, callVars(vars, e, v, spent + ms, m))];
    }
    // a page that writes through the callee, whose store refuses the write (the add-to-cart)
    const refused = res === "ok" ? writeFailure(ctx, st.services, m, e, vars, rnd) : undefined;
    if (refused) {
      const failed = render(failureLines(m, e, "error", v), {
        ...callVars(vars, e, v, spent + ms, m),
        ...refused.vars,
      });
      const at = () => ({
        ...vars,
        ...refused.vars,
        status: failedStatus(ctx, m, refused.vars.path, "error"),
      });
      return [...out, ...around(m, () => requestVars(at(), Math.max(1, Math.round(spent + ms))), failed)];
    }
    // the handler carries on without a soft callee (the frontend shows no ad)
    if (res === "ok" || softOnly(m, e.to)) {
      spent += ms;
      continue;
    }
    const lines = linesOf(ctx, m, e, res, v, rnd);
    if (lines?.length) {
      const failed = render(lines, {
        ...callVars(vars, e, v, spent + ms, m),
        cause: causeOf(ctx, st.services, m, e, res, vars, rnd),
      });
      // the request's own lines, with the status it answered
      const at = () => {
        const where = { ...vars, ...(page ?? requestOf(m, e.to)) };
        const status = failedStatus(ctx, m, String(where.path), res, st.services.get(e.to)?.model);
        return requestVars({ ...where, status }, Math.max(1, Math.round(spent + ms)));
      };
      return [...out, ...around(m, at, failed)];
    }
    // no template for it: the request still went badly, shown by its duration
    spent += ms;
  }
  const jitter = 0.85 + rnd() * 0.3;
  return [
    ...out,
    ...render(
      ownLines(m, st.services.get(m.key), rnd),
      requestVars(req, Math.max(1, Math.round(spent * jitter))),
    ),
  ];
}

/** A request's lines: its method's own where some of its calls are one it logs in its own words (steps.ts). */
function ownLines(m: ServiceModel, s: SvcState | undefined, rnd: () => number): string[] {
  if (!s?.rpcRps.size || !(s.rps > 0)) return m.logs.request;
  let x = rnd() * s.rps;
  for (const [rpc, r] of s.rpcRps) {
    if (x < r) return rpcLines(m, rpc) ?? m.logs.request;
    x -= r;
  }
  return m.logs.request;
}

/**
 * A failed request's lines: the failure's, inside the request's own when these say the status it
 * answered ({status}); those before the first such line are written as the request starts.
 */
function around(m: ServiceModel, vars: () => Vars, failed: string[]): string[] {
  const at = m.logs.request.findIndex((l) => l.includes("{status}"));
  if (!m.routes.length || at < 0) return failed;
  const own = render(m.logs.request, vars());
  return [...own.slice(0, at), ...failed, ...own.slice(at)];
}

/**
 * The sampled call goes through, but it is a write of one of the caller's pages and the callee's
 * store refuses writes (store-writes.ts): that page fails, in its handler's words ({what}), with
 * the callee's answer ({cause}: its own words for its store's failure, the refusal inside).
 * No draw is made unless some callee pod's store refuses writes.
 */
function writeFailure(
  ctx: SimContext,
  services: Map<string, SvcState>,
  m: ServiceModel,
  e: Edge,
  vars: Vars,
  rnd: () => number,
): { vars: Vars & { path: string } } | undefined {
  const callee = services.get(e.to)?.model;
  const route = writeRoutes(m, e.to).find((r) => WRITE_WORDS[m.key]?.[r]);
  if (!callee || !route || e.store) return undefined;
  const share = refusedShare(ctx, services, e.to);
  if (!(share > 0) || rnd() >= share * writeShare(callee)) return undefined;
  const [method, path] = route.split(" ");
  const edges = systemOf(callee).edges.get(callee.key) ?? [];
  const step = callee.errors?.steps.find((s) => s.says !== undefined && stepEdge(edges, s.to)?.store);
  const cause = step?.says ? render([step.says], { ...vars, err: OOM_ERR })[0] : OOM_ERR;
  return { vars: { method, path, what: WRITE_WORDS[m.key][route], cause } };
}
