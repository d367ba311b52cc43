// The expert tier's `calls` check (docs/expert-tier.md): requests along the edge a fault breaks
// while it leaves its target rolled out and Ready, made from a pod of the namespace with the tools
// its images have. The fault's values name the edge (chaos/catalog.yaml, envs/<system>/env.yaml):
//   var           env-wrong-addr, env-shadowed: from each target pod (the caller) to the address
//                 the application reads, the variable's effective value in its environment
//   callee        network-partition: from each target pod to the callee's Service
//   port, path    http-abort: to that route of each target pod, from a caller's pod
//   (none)        netpol-deny: from a caller's pod to the target's Service, on each of its ports
// A request passes when it connects and the server answers: an HTTP status from an HTTP server,
// or, from a server of another protocol (gRPC, redis, mysql) reading an HTTP request, a
// connection it accepted and closed. confirm: the same requests fail (refused, timed out, no such
// host, aborted). final: the target is rolled out too (guarded.ts).
import type { Pod, Service } from "../kube/objects.js";
import { callersOf, defaultPortOf, dialedAddress, dialOf, protocolOf, routeRequest } from "./address.js";
import { guardedVerifier } from "./guarded.js";
import { isReady, targetPods } from "./pods.js";
import {
  appContainer,
  CALL_SECONDS,
  type Call,
  type CallOutcome,
  type Made,
  readEnv,
  requestFrom,
} from "./requests.js";
import type { Verdict, Verifier, VerifyContext } from "./types.js";

export type Edge =
  | { kind: "env"; variable: string }
  | { kind: "callee"; callee: string }
  | { kind: "route"; port: number; path: string }
  | { kind: "ingress" };

/** The edge a fault's values name (its template's placeholders). */
export function edgeOf(vars: Record<string, unknown>): Edge {
  if (typeof vars.var === "string") return { kind: "env", variable: vars.var };
  if (typeof vars.callee === "string") return { kind: "callee", callee: vars.callee };
  if (vars.port !== undefined && typeof vars.path === "string")
    return { kind: "route", port: Number(vars.port), path: vars.path };
  return { kind: "ingress" };
}

/** One request of a reading: from where, to what, what came of it, and whether an HTTP answer is due. */
export interface CallRow {
  from: string;
  to: string;
  outcome: CallOutcome;
  http: boolean;
}

/** The request connected and the server answered as its protocol does. */
export const reached = (r: CallRow) =>
  r.outcome.kind === "answered" || (r.outcome.kind === "closed" && !r.http);

export function describeOutcome(o: CallOutcome, http: boolean): string {
  if (o.kind === "answered") return `HTTP ${o.status}`;
  if (o.kind === "closed")
    return http ? "connected, closed without an answer" : "connected (the server speaks another protocol)";
  if (o.kind === "refused") return "connection refused";
  if (o.kind === "timeout") return "timed out";
  if (o.kind === "unreachable") return "no route to host";
  if (o.kind === "no such host") return "no such host";
  return o.words;
}

/**
 * A reading's verdict: every request reached its server and nothing kept a request from being
 * made. A request that failed says the edge is broken; a reading with only problems (no pod to
 * request from, a tool's words it cannot read) says nothing either way.
 */
export function judgeCalls(edge: string, rows: CallRow[], problems: string[]): Verdict {
  const failed = rows.filter((r) => !reached(r));
  const conclusive = failed.filter((r) => r.outcome.kind !== "unknown");
  const line = (r: CallRow) => `${r.from} → ${r.to}: ${describeOutcome(r.outcome, r.http)}`;
  const issues = rows.length || problems.length ? problems : ["no request was made"];
  const pass = rows.length > 0 && failed.length === 0 && issues.length === 0;
  return {
    pass,
    reason: pass
      ? `${edge}: every request reached its server (${rows.map(line).join("; ")})`
      : `${edge} fails: ${[...failed.map(line), ...issues].join("; ")}`,
    measurements: {
      edge,
      calls: rows.map((r) => ({ from: r.from, to: r.to, ...r.outcome, reached: reached(r) })),
      ...(issues.length ? { problems: issues } : {}),
    },
    ...(!pass && conclusive.length === 0 ? { inconclusive: true } : {}),
  };
}

interface Reading {
  edge: string;
  rows: CallRow[];
  problems: string[];
}

const readyPods = async (ctx: VerifyContext, app: string): Promise<Pod[]> =>
  (await ctx.client.list<Pod>("v1", "Pod", ctx.namespace, `app=${app}`)).filter(
    (p) => !p.metadata.deletionTimestamp && isReady(p),
  );

/** A Service's name for a workload (the topology's first), and its ports (the object's, else the topology's). */
async function serviceOf(ctx: VerifyContext, app: string): Promise<{ host: string; ports: number[] }> {
  const t = ctx.env.topology.services[app];
  const host = t?.services?.[0] ?? app;
  const svc = await ctx.client.tryGet<Service>("v1", "Service", ctx.namespace, host);
  const ports = svc?.spec?.ports?.map((p) => p.port) ?? (t?.port ? [t.port] : []);
  return { host, ports };
}

/** Requests from the first Ready pod of `apps` that has a tool; the pod used is kept for the next ones. */
async function fromClients(
  ctx: VerifyContext,
  apps: string[],
  calls: { to: string; call: Call; http: boolean }[],
  seconds: number,
  r: Reading,
) {
  let using: Pod | undefined;
  const pods = (await Promise.all(apps.map((a) => readyPods(ctx, a)))).flat();
  for (const c of calls) {
    let made: Made | undefined;
    for (const pod of using ? [using] : pods) {
      made = await requestFrom(ctx, pod, c.call, seconds);
      if (made) {
        using = pod;
        break;
      }
    }
    if (!made) {
      r.problems.push(`no Ready pod of ${apps.join(", ") || "a caller"} has curl or wget to request from`);
      return;
    }
    r.rows.push({ from: made.from, to: c.to, outcome: made.outcome, http: c.http });
  }
}

/** The apps to request from toward the target: its callers, then the system's user-check clients. */
function clientApps(ctx: VerifyContext): string[] {
  const apps = [...callersOf(ctx.env.topology, ctx.service), ...(ctx.env.userCheck?.from.apps ?? [])];
  return [...new Set(apps)].filter((a) => a !== ctx.service);
}

async function readEnvEdge(ctx: VerifyContext, variable: string): Promise<Reading> {
  const r: Reading = { edge: `${ctx.service}'s calls through ${variable}`, rows: [], problems: [] };
  const dial = dialOf(ctx.env.topology.services[ctx.service], variable);
  const protocol = dial ? protocolOf(ctx.env.topology, dial.key) : "unknown";
  const pods = (await targetPods(ctx)).filter(isReady);
  if (!pods.length) r.problems.push(`no Ready pod of ${ctx.service}`);
  for (const pod of pods) {
    const container = appContainer(ctx.env, pod, ctx.service);
    const env = await readEnv(ctx, pod, container);
    if (typeof env === "string") {
      r.problems.push(env);
      continue;
    }
    const a = dialedAddress(dial?.dial, variable, env, defaultPortOf(protocol));
    const from = `${pod.metadata.name}/${container}`;
    if (typeof a === "string") {
      r.rows.push({ from, to: variable, outcome: { kind: "no address", words: a }, http: false });
      continue;
    }
    const to = `${a.host}:${a.port}`;
    const path = a.path ?? dial?.dial.path ?? "/";
    const made = await requestFrom(ctx, pod, { url: `http://${to}${path}` });
    if (made)
      r.rows.push({
        from: made.from,
        to: `${to} (${variable})`,
        outcome: made.outcome,
        http: protocol === "http",
      });
    else r.problems.push(`${pod.metadata.name} has no curl or wget to request from`);
  }
  return r;
}

async function readCallee(ctx: VerifyContext, callee: string): Promise<Reading> {
  const r: Reading = { edge: `${ctx.service} → ${callee}`, rows: [], problems: [] };
  const { host, ports } = await serviceOf(ctx, callee);
  const http = protocolOf(ctx.env.topology, callee) === "http";
  const pods = (await targetPods(ctx)).filter(isReady);
  if (!pods.length) r.problems.push(`no Ready pod of ${ctx.service}`);
  if (!ports.length) r.problems.push(`no port known for ${callee}`);
  for (const pod of ports.length ? pods : []) {
    const made = await requestFrom(ctx, pod, { url: `http://${host}:${ports[0]}/` });
    if (made) r.rows.push({ from: made.from, to: `${host}:${ports[0]}`, outcome: made.outcome, http });
    else r.problems.push(`${pod.metadata.name} has no curl or wget to request from`);
  }
  return r;
}

async function readIngress(ctx: VerifyContext): Promise<Reading> {
  const r: Reading = { edge: `calls to ${ctx.service}`, rows: [], problems: [] };
  const { host, ports } = await serviceOf(ctx, ctx.service);
  const http = protocolOf(ctx.env.topology, ctx.service) === "http";
  if (!ports.length) r.problems.push(`no port known for ${ctx.service}`);
  const calls = ports.map((p) => ({ to: `${host}:${p}`, call: { url: `http://${host}:${p}/` }, http }));
  await fromClients(ctx, clientApps(ctx), calls, CALL_SECONDS, r);
  return r;
}

async function readRoute(ctx: VerifyContext, port: number, pattern: string): Promise<Reading> {
  const known = ctx.env.userCheck?.requests ?? [];
  const { path, like } = routeRequest(pattern, known);
  const r: Reading = {
    edge: `${like?.method ?? "GET"} ${path} on ${ctx.service}:${port}`,
    rows: [],
    problems: [],
  };
  // each pod's own address: HTTPChaos acts on the pods it selected, not on the Service
  const pods = (await targetPods(ctx)).filter((p) => p.status?.phase === "Running" && p.status.podIP);
  if (!pods.length) r.problems.push(`no Running pod of ${ctx.service}`);
  const calls = pods.map((p) => {
    const ip = p.status!.podIP!;
    const host = ip.includes(":") ? `[${ip}]` : ip;
    const call: Call = {
      url: `http://${host}:${port}${path}`,
      ...(like ? { method: like.method, data: like.data, contentType: like.contentType } : {}),
    };
    return { to: `${p.metadata.name} ${host}:${port}${path}`, call, http: true };
  });
  const seconds = Math.max(CALL_SECONDS, ctx.env.userCheck?.timeoutSeconds ?? 0);
  await fromClients(ctx, clientApps(ctx), calls, seconds, r);
  return r;
}

async function read(ctx: VerifyContext, edge: Edge): Promise<Verdict> {
  const r =
    edge.kind === "env"
      ? await readEnvEdge(ctx, edge.variable)
      : edge.kind === "callee"
        ? await readCallee(ctx, edge.callee)
        : edge.kind === "route"
          ? await readRoute(ctx, edge.port, edge.path)
          : await readIngress(ctx);
  return judgeCalls(r.edge, r.rows, r.problems);
}

/** The calls check of one fault's edge. */
export const callsVerifier = (edge: Edge): Verifier => guardedVerifier("calls", (ctx) => read(ctx, edge));
