// The load and health of each system in a namespace, from the pods that exist there: which pods
// serve (Ready, and not swapped for pause by pod-failure), how many requests per second each
// receives (entry load flowing down the call graph, `fanout` spread over `calls`, one store
// request per request for mysql/redis), and per service the mean time to serve a request and
// the share answered with an error, both including what its callees do (so a slow or failed
// service makes its callers slow or failing, up the graph). Nothing here depends on time: a
// namespace is recomputed only after its pods or the fault book changed.
import { R } from "../../api/resources.js";
import type { Edge, ServiceModel, SystemModel } from "../../context/catalog.js";
import type { SimContext } from "../../context/context.js";
import { podReady } from "../../core/meta.js";
import type { Pod } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { isPause } from "../../userland/toolbox.js";
import { edgeView } from "./calls.js";
import { podFailed } from "./impairments.js";
import { ownMs } from "./own-time.js";
import type { SvcState } from "./service-state.js";

export interface NsState {
  services: Map<string, SvcState>;
}

const mainSpec = (pod: Pod, m: ServiceModel) =>
  (pod.spec?.containers ?? []).find((c) => c.name === m.container);

export class Traffic {
  private readonly cache = new Map<string, NsState>();

  constructor(private readonly ctx: SimContext) {
    ctx.store.subscribe((e) => {
      if (e.rt.kind !== "Pod") return;
      const o = e.object as Pod;
      const was = e.old as Pod | undefined;
      // only what changes who serves: existence, readiness, IP, phase, labels, deletion
      if (was && fingerprint(was) === fingerprint(o)) return;
      this.cache.delete(o.metadata.namespace ?? "");
    });
    ctx.faults.onChange(() => this.cache.clear());
  }

  state(ns: string): NsState {
    let st = this.cache.get(ns);
    if (!st) {
      st = this.compute(ns);
      this.cache.set(ns, st);
    }
    return st;
  }

  /** Requests per second one pod of a service receives (0 unless it serves). */
  podRps(pod: KObject, m: ServiceModel): number {
    const s = this.state(pod.metadata.namespace ?? "").services.get(m.key);
    if (!s?.serving.some((p) => p.metadata.uid === pod.metadata.uid)) return 0;
    return s.rps / Math.max(1, s.endpoints.length);
  }

  private compute(ns: string): NsState {
    const cat = this.ctx.catalog;
    const byApp = new Map<string, Pod[]>();
    for (const p of this.ctx.store.list(R("Pod"), ns) as Pod[]) {
      const app = p.metadata.labels?.app;
      if (!app || !cat.byApp.has(app) || p.metadata.deletionTimestamp) continue;
      byApp.set(app, [...(byApp.get(app) ?? []), p]);
    }
    const services = new Map<string, SvcState>();
    for (const sys of cat.systems) {
      if (![...sys.services.keys()].some((k) => byApp.has(k))) continue;
      this.flow(sys, byApp, services);
      this.health(sys, services);
    }
    return { services };
  }

  /** Entry load, then callers before callees. */
  private flow(sys: SystemModel, byApp: Map<string, Pod[]>, out: Map<string, SvcState>) {
    for (const m of sys.services.values()) {
      const pods = byApp.get(m.key) ?? [];
      const endpoints = pods.filter((p) => podReady(p) && p.status?.podIP);
      // Chaos Mesh's pod-failure: pause answers nothing, even before readiness notices
      const serving = endpoints.filter((p) => !podFailed(this.ctx, p) && !isPause(mainSpec(p, m)));
      out.set(m.key, { model: m, pods, endpoints, serving, rps: 0, sends: 0, latencyMs: 0, failRate: 0 });
    }
    for (const e of sys.entries) {
      const target = out.get(e.service);
      if (!target) continue;
      if (e.source === null) target.rps += e.rps;
      else {
        const src = out.get(e.source);
        const running = src?.pods.some((p) => p.status?.phase === "Running" && !podFailed(this.ctx, p));
        if (!src || !running) continue;
        src.sends += e.rps;
        // the source's own edge carries it; without one the load lands on the entry directly
        if (!(sys.edges.get(e.source) ?? []).some((x) => x.to === e.service)) target.rps += e.rps;
      }
    }
    for (const k of [...sys.order].reverse()) {
      const s = out.get(k)!;
      const served = s.endpoints.length ? s.serving.length / s.endpoints.length : 0;
      const out$ = s.rps * served + s.sends;
      for (const e of sys.edges.get(k) ?? [])
        if (!e.back && e.perReq > 0) out.get(e.to)!.rps += out$ * e.perReq;
    }
  }

  /** Callees before callers: own work (throttled CPU, stalled disk) plus what the calls cost. */
  private health(sys: SystemModel, out: Map<string, SvcState>) {
    for (const k of sys.order) {
      const s = out.get(k)!;
      const callers = s.serving.length ? s.serving : [undefined];
      let latency = 0;
      let ok = 1;
      for (const e of sys.edges.get(k) ?? []) {
        if (e.back || e.perReq <= 0) continue;
        let spent = 0;
        let fail = 0;
        for (const pod of callers) {
          const v = edgeView(this.ctx, out, s.model, pod, e);
          spent += v.expectedMs;
          fail += v.refused + v.timeout + v.error;
        }
        latency += (e.perReq * spent) / callers.length;
        ok *= 1 - (e.perReq * fail) / callers.length;
      }
      s.latencyMs = this.ownMs(s) + latency;
      s.failRate = Math.min(1, Math.max(0, 1 - ok));
    }
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

function fingerprint(p: Pod): string {
  return JSON.stringify([
    p.metadata.labels?.app,
    p.metadata.deletionTimestamp,
    p.status?.phase,
    p.status?.podIP,
    podReady(p),
  ]);
}

export type { Edge };
