// The load and health of each system in a namespace, from the pods that exist there: which pods
// serve (Ready, and not swapped for pause by pod-failure), how many requests per second each
// receives (entry load flowing down the call graph, `fanout` spread over `calls`, one store
// request per request for mysql/redis), and per service the mean time to serve a request and
// the share answered with an error, both including what its callees do (so a slow or failed
// service makes its callers slow or failing, up the graph). A load source's entry rate follows
// its users (Locust's -u from USERS: the topology's rps is at the setting's default), summed over
// its running pods (each Locust process sends its own, whichever workload owns the pod); a caller
// that retries (settings' retries) sends each failed call again, up to its retries. A handler that
// makes its calls in order and stops at the first that fails (`errors.steps`: checkoutservice's
// PlaceOrder) makes a later call only for the requests whose earlier calls all succeeded: the
// callee receives the caller's rate times that share, and the caller waits only for the calls it
// makes (steps.ts). The shares come from the callees' health, which comes from the load: the two
// are worked out again, from the last shares, until the shares stand still. A namespace
// is recomputed after its pods or the fault book changed; only its queues (queues.ts: a service
// at or past its capacity, capacity.ts) move with time, stepped while they fill or drain.
import { R } from "../../api/resources.js";
import { type Edge, type ServiceModel, type SystemModel, softOnly, systemOf } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { podReady } from "../../core/meta.js";
import type { Pod } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { containerRef } from "../../metrics/usage.js";
import { isPause } from "../../userland/toolbox.js";
import { edgeView, type Spots, spotsOf } from "./calls.js";
import { curveWaitMs, podCapacity } from "./capacity.js";
import { podFailed } from "./impairments.js";
import { ownMs } from "./own-time.js";
import { type Flow, Queues } from "./queues.js";
import type { SvcState } from "./service-state.js";
import { settingOf } from "./settings.js";
import { type Gates, gateKey, stepRates } from "./steps.js";

export interface NsState {
  services: Map<string, SvcState>;
  /** When an application that is starting opens its port: the state changes then. */
  expiresAt: number;
}

/** What decides where calls go, besides the pods: Services, their endpoints, policies. */
const ROUTING_KINDS = new Set(["Service", "Endpoints", "NetworkPolicy"]);

const mainSpec = (pod: Pod, m: ServiceModel) =>
  (pod.spec?.containers ?? []).find((c) => c.name === m.container);

/** Passes over the load and the health at most, while the shares of the calls made still move. */
const MAX_PASSES = 4;

/** Retries of failed calls: 1 + f + f^2 + ... + f^retries attempts per call failing with share f. */
const attempts = (f: number, retries: number) => {
  let sum = 1;
  for (let k = 1, p = f; k <= retries && p > 1e-12; k++, p *= f) sum += p;
  return sum;
};

export class Traffic {
  private readonly cache = new Map<string, NsState>();
  private readonly queues = new Map<string, Queues>();
  /** Per namespace, the share of each edge's calls that fail for good (after retries): what stops a handler. */
  private readonly gates = new Map<string, Gates>();

  constructor(private readonly ctx: SimContext) {
    ctx.store.subscribe((e) => {
      const kind = e.rt.kind;
      const ns = e.object.metadata.namespace ?? "";
      if (kind === "Pod") {
        const o = e.object as Pod;
        const was = e.old as Pod | undefined;
        // only what changes who serves: existence, readiness, IP, phase, labels, restarts, deletion
        if (was && fingerprint(was) === fingerprint(o)) return;
        this.cache.delete(ns);
      } else if (ROUTING_KINDS.has(kind)) this.cache.delete(ns);
      else if (kind === "Namespace") this.cache.clear(); // namespaceSelectors read its labels
    });
    ctx.faults.onChange(() => this.cache.clear());
  }

  state(ns: string): NsState {
    const now = this.ctx.clock.now();
    const q = this.queuesOf(ns);
    let st = this.cache.get(ns);
    if (!st || now >= st.expiresAt) {
      st = this.compute(ns, q);
      this.cache.set(ns, st);
    }
    // the queues move on in whole steps from where they were; each step sees the last one's load
    if (!q.active) q.at = now - (now % 1000);
    for (let { n, dt } = q.plan(now); q.active && n > 0; n--) {
      q.step(flowsOf(st), dt);
      q.at += dt;
      st = this.compute(ns, q);
      this.cache.set(ns, st);
    }
    return st;
  }

  /** Work a namespace out again (a store's runtime configuration changed: store-clients.ts). */
  forget(ns: string): void {
    this.cache.delete(ns);
  }

  private queuesOf(ns: string): Queues {
    let q = this.queues.get(ns);
    if (!q) {
      q = new Queues();
      this.queues.set(ns, q);
    }
    return q;
  }

  /** Requests per second one pod of a service receives (0 unless it serves). */
  podRps(pod: KObject, m: ServiceModel): number {
    const s = this.state(pod.metadata.namespace ?? "").services.get(m.key);
    if (!s?.serving.some((p) => p.metadata.uid === pod.metadata.uid)) return 0;
    return s.rps / Math.max(1, s.endpoints.length);
  }

  private compute(ns: string, q: Queues): NsState {
    const cat = this.ctx.catalog;
    const byApp = new Map<string, Pod[]>();
    for (const p of this.ctx.store.list(R("Pod"), ns) as Pod[]) {
      const app = p.metadata.labels?.app;
      if (!app || !cat.byApp.has(app) || p.metadata.deletionTimestamp) continue;
      byApp.set(app, [...(byApp.get(app) ?? []), p]);
    }
    let services = new Map<string, SvcState>();
    // where each pod's calls go is worked out once per computation, for the load and the health
    const memo = new Map<string, Spots>();
    let retrying = false;
    let gates = this.gates.get(ns) ?? new Map<string, number>();
    // the load that reaches a call depends on how the earlier calls fare, which depends on the
    // load: from the last shares, again until they stand still (a few passes at most)
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      services = new Map<string, SvcState>();
      retrying = false;
      const next: Gates = new Map();
      for (const sys of cat.systems) {
        if (![...sys.services.keys()].some((k) => byApp.has(k))) continue;
        this.flow(sys, byApp, services, memo, q, gates);
        retrying = this.health(sys, services, memo, q, gates, next) || retrying;
      }
      const moved = [...new Set([...gates.keys(), ...next.keys()])].some(
        (k) => Math.abs((gates.get(k) ?? 0) - (next.get(k) ?? 0)) > 1e-6,
      );
      gates = next;
      if (!moved) break;
    }
    this.gates.set(ns, gates);
    q.active = q.settle(flowsOf({ services, expiresAt: 0 }), retrying);
    return { services, expiresAt: this.nextOpening(ns) };
  }

  /** The next moment a container of the namespace finishes starting (its listener opens). */
  private nextOpening(ns: string): number {
    const now = this.ctx.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const p of this.ctx.store.list(R("Pod"), ns) as Pod[])
      for (const c of p.spec?.containers ?? []) {
        const ref = containerRef(p, c.name, this.ctx.clock);
        if (!ref) continue;
        const at = ref.startedAt + this.ctx.behavior.startupMs(ref);
        if (at > now && at < next) next = at;
      }
    return next;
  }

  /** The pods that make a service's calls: its serving pods, else any running one. */
  private callers(s: SvcState): Pod[] {
    if (s.serving.length) return s.serving;
    return s.pods.filter((p) => p.status?.phase === "Running").slice(0, 1);
  }

  /** Entry load, then callers before callees. */
  private view(out: Map<string, SvcState>, memo: Map<string, Spots>, m: ServiceModel, pod: Pod, e: Edge) {
    const key = `${pod.metadata.uid}|${e.to}|${e.store ?? ""}`;
    let where = memo.get(key);
    if (!where) {
      where = spotsOf(this.ctx, out, m, pod, e);
      memo.set(key, where);
    }
    return edgeView(this.ctx, out, m, pod, e, undefined, where);
  }

  private flow(
    sys: SystemModel,
    byApp: Map<string, Pod[]>,
    out: Map<string, SvcState>,
    memo: Map<string, Spots>,
    q: Queues,
    gates: Gates,
  ) {
    for (const m of sys.services.values()) {
      const pods = byApp.get(m.key) ?? [];
      const endpoints = pods.filter((p) => podReady(p) && p.status?.podIP);
      // Chaos Mesh's pod-failure: pause answers nothing, even before readiness notices
      const serving = endpoints.filter((p) => !podFailed(this.ctx, p) && !isPause(mainSpec(p, m)));
      out.set(m.key, {
        model: m,
        pods,
        endpoints,
        serving,
        rps: 0,
        sends: 0,
        latencyMs: 0,
        failRate: 0,
        ownMs: 0,
        rpcRps: new Map(),
        capacity: Number.POSITIVE_INFINITY,
        queueMs: 0,
      });
    }
    for (const e of sys.entries) {
      const target = out.get(e.service);
      if (!target) continue;
      if (e.source === null) target.rps += e.rps;
      else {
        const src = out.get(e.source);
        // every running load generator sends its own users' load: the Deployment's pod, and any
        // other pod of its app (a Job's, a copy scaled out), each Locust process on its own
        const running = (src?.pods ?? []).filter(
          (p) => p.status?.phase === "Running" && !podFailed(this.ctx, p),
        );
        if (!src || !running.length) continue;
        const wait = q.waitMs(e.service, q.capacity.get(e.service) ?? 0);
        let rps = 0;
        for (const pod of running) rps += e.rps * this.usersFactor(src.model, pod, wait);
        src.sends += rps;
        // the source's own edge carries it; without one the load lands on the entry directly
        if (!(sys.edges.get(e.source) ?? []).some((x) => x.to === e.service)) target.rps += rps;
      }
    }
    for (const k of [...sys.order].reverse()) {
      const s = out.get(k)!;
      const served = s.endpoints.length ? s.serving.length / s.endpoints.length : 0;
      // a saturated service passes on what it serves, not what it receives
      const out$ = Math.min(s.rps * served, q.capacity.get(k) ?? Number.POSITIVE_INFINITY) + s.sends;
      const callers = this.callers(s);
      if (out$ <= 0 || !callers.length) continue;
      // the calls each request gets to (a handler stops at its first failing call: steps.ts)
      const edges = sys.edges.get(k) ?? [];
      const rates = stepRates(s.model, edges, gates);
      // the load goes where each caller's calls land (its environment's address, the endpoints)
      for (const e of edges) {
        if (e.back || e.perReq <= 0) continue;
        const r = rates.get(e) ?? { perReq: e.perReq, rpcs: [] };
        for (const pod of callers) {
          const again = attempts(q.fail.get(`${k}>${e.to}`) ?? 0, this.retries(s.model, pod));
          for (const [to, share] of this.view(out, memo, s.model, pod, e).lands) {
            const t = out.get(to);
            if (!t) continue;
            const each = (out$ * share * again) / callers.length;
            t.rps += each * r.perReq;
            // the calls of a method the callee logs in its own words (ShipOrder)
            for (const x of r.rpcs)
              if (to === e.to) t.rpcRps.set(x.rpc, (t.rpcRps.get(x.rpc) ?? 0) + each * x.perReq);
          }
        }
      }
    }
  }

  /**
   * Callees before callers: own work (throttled CPU, stalled disk), the wait for a worker, plus
   * what the calls cost (each failed call tried again up to the caller's retries). Returns
   * whether any caller retries.
   */
  private health(
    sys: SystemModel,
    out: Map<string, SvcState>,
    memo: Map<string, Spots>,
    q: Queues,
    gates: Gates,
    next: Gates,
  ): boolean {
    let retrying = false;
    for (const k of sys.order) {
      const s = out.get(k)!;
      const callers = this.callers(s);
      let latency = 0;
      let ok = 1;
      const edges = sys.edges.get(k) ?? [];
      // a call the handler does not get to costs nothing
      const rates = stepRates(s.model, edges, gates);
      for (const e of edges) {
        if (e.back || e.perReq <= 0 || !callers.length) continue;
        let spent = 0;
        let fail = 0;
        let failOnce = 0;
        for (const pod of callers) {
          const v = this.view(out, memo, s.model, pod, e);
          const f = 1 - v.p.ok;
          const retries = this.retries(s.model, pod);
          if (retries > 0) retrying = true;
          spent += v.expectedMs * attempts(f, retries);
          fail += f ** (retries + 1);
          failOnce += f;
        }
        q.setFail(`${k}>${e.to}`, failOnce / callers.length);
        if (fail > 0) next.set(gateKey(k, e), fail / callers.length);
        latency += ((rates.get(e)?.perReq ?? e.perReq) * spent) / callers.length;
        // a soft callee's failure costs its time, not the request
        if (!softOnly(s.model, e.to)) ok *= 1 - (e.perReq * fail) / callers.length;
      }
      s.ownMs = this.ownMs(s);
      this.queue(s, q, s.ownMs + latency);
      s.latencyMs = s.ownMs + s.queueMs + latency;
      s.failRate = Math.min(1, Math.max(0, 1 - ok));
    }
    return retrying;
  }

  /** The service's capacity and the wait for a worker (capacity.ts, queues.ts). */
  private queue(s: SvcState, q: Queues, perRequestMs: number): void {
    if (!s.serving.length) return;
    let cap = 0;
    for (const pod of s.serving) cap += podCapacity(this.ctx, s.model, pod, perRequestMs);
    s.capacity = cap;
    q.capacity.set(s.model.key, cap);
    const waited = q.waitMs(s.model.key, cap);
    s.queueMs = waited > 0 ? waited : cap > 0 ? curveWaitMs(s.ownMs, s.rps / cap) : 0;
  }

  /**
   * A load source's users over those its topology rate is given at (Locust's -u). Each user waits
   * for its answer before it thinks again (a closed loop): with a think time of Z seconds per
   * request (users / rate at the default) and a wait W for a worker, a user sends 1 / (Z + W)
   * requests a second, so a surge fills the entry's queue only until the users all wait.
   */
  private usersFactor(m: ServiceModel, pod: Pod, waitMs: number): number {
    const users = settingOf(this.ctx, pod, m, "users");
    const base = Number(m.settings.users?.default);
    if (users === undefined || !(base > 0)) return 1;
    const rate = systemOf(m).entries.find((e) => e.source === m.key)?.rps ?? 1;
    const think = base / Math.max(1e-9, rate);
    return (users / base) * (think / (think + waitMs / 1000));
  }

  /** How often a caller pod tries a failed call again. */
  private retries(m: ServiceModel, pod: Pod): number {
    return m.settings.retries ? (settingOf(this.ctx, pod, m, "retries") ?? 0) : 0;
  }

  /** Time a pod spends on a request itself (own-time.ts), on average over the serving pods. */
  private ownMs(s: SvcState): number {
    const m = s.model;
    if (!s.serving.length) return m.runtime.cpuPerRps + 1;
    const rps = s.rps / Math.max(1, s.endpoints.length);
    let total = 0;
    for (const pod of s.serving) total += ownMs(this.ctx, m, pod, rps);
    return total / s.serving.length;
  }
}

const shared = new WeakMap<object, Traffic>();

/** The one Traffic of a cluster (the Behavior and the exec commands see the same). */
export function trafficOf(ctx: SimContext): Traffic {
  let t = shared.get(ctx.faults);
  if (!t) {
    t = new Traffic(ctx);
    shared.set(ctx.faults, t);
  }
  return t;
}

/** What the queues need of each service: its arrivals and its capacity. */
function flowsOf(st: NsState): Map<string, Flow> {
  const out = new Map<string, Flow>();
  for (const [k, s] of st.services) if (s.serving.length) out.set(k, { rps: s.rps, capacity: s.capacity });
  return out;
}

function fingerprint(p: Pod): string {
  return JSON.stringify([
    p.metadata.labels,
    (p.status?.containerStatuses ?? []).map((c) => c.restartCount),
    p.metadata.deletionTimestamp,
    p.status?.phase,
    p.status?.podIP,
    podReady(p),
  ]);
}

export type { Edge };
