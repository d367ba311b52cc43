// What a service writes while it runs, from its log templates: every sample period a pod that
// handles (or, for a load generator, sends) traffic logs one request, the way that request went:
// the request lines when every call it made succeeded, else the lines of the first dependency
// that refused, timed out or failed it ({dep} = the Service it dialed). Registry and broker
// connections (nacos, rabbitmq), and the store pool of a service without traffic, are checked
// every period whatever the load, and a disk under IOChaos shows as ioStall lines. A quiet service logs a request only as often as it gets one.

import { type Edge, type ServiceModel, softOnly, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { STAMPS } from "../../core/log-stamps.js";
import type { Pod } from "../../core/objects.js";
import { type Writer, walk } from "./answers.js";
import { type CallOutcome, drawOutcome, type EdgeView, edgeView, outcomeMs } from "./calls.js";
import { ioFaultsOnMounts } from "./impairments.js";
import { ownMs } from "./own-time.js";
import type { SvcState } from "./service-state.js";
import { javaDuration } from "./settings.js";
import { authLines } from "./store-auth.js";
import { refusalLines } from "./store-clients.js";
import type { Traffic } from "./traffic.js";

export const PLACEHOLDERS =
  /\{(time|springTime|pythonTime|redisTime|goLogTime|tornadoTime|clfTime|nginxTime|start|epochMs|pod|podIp|port|dep|depPort|depIp|var|what|ms|seconds|jvmSeconds|id|method|path|timeout|bind|err|cause|rpc)\}/g;

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
    | "rpc",
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
  for (const e of edges.filter((x) => x.perReq > 0 && !x.back)) {
    if (rnd() >= e.perReq) continue;
    const v = view(e);
    if (v.none) continue;
    const res = drawOutcome(v, rnd);
    const ms = outcomeMs(v, res);
    // a write the store refuses for its maxmemory (store-clients.ts): the call's own lines
    if (res === "ok" && v.oom > 0 && rnd() * v.p.ok < v.oom) {
      const oom = refusalLines(ctx, m, e, "OOM");
      if (oom) return [...out, ...render(oom, callVars(vars, e, v, spent + ms, m))];
    }
    // the handler carries on without a soft callee (the frontend shows no ad)
    if (res === "ok" || softOnly(m, e.to)) {
      spent += ms;
      continue;
    }
    const lines = linesOf(ctx, m, e, res, v, rnd);
    if (lines?.length)
      return [
        ...out,
        ...render(lines, {
          ...callVars(vars, e, v, spent + ms, m),
          cause: causeOf(ctx, st.services, m, e, res, vars, rnd),
        }),
      ];
    // no template for it: the request still went badly, shown by its duration
    spent += ms;
  }
  const jitter = 0.85 + rnd() * 0.3;
  return [...out, ...render(m.logs.request, requestVars(vars, Math.max(1, Math.round(spent * jitter))))];
}
