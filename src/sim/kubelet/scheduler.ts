// The default scheduler: binds each pending pod of schedulerName default-scheduler to the node
// with the most room left among those it fits (fit.ts), or marks it Unschedulable with the real
// FailedScheduling message. Unschedulable pods are retried when pods leave, nodes change, and
// every `scheduling.retry` ms. Texts and delays: the `scheduling` part of pod.yaml.

import { isDeepStrictEqual } from "node:util";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { SCHEDULER } from "../context/runtime.js";
import { keyOf, splitKey } from "../core/meta.js";
import type { Node, Pod, PodCondition } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import type { SchedulingDoc } from "../stages/load.js";
import { render } from "../stages/stage.js";
import { isTerminated, type Misfit, misfits, score } from "./fit.js";

const RESOURCE = new Set(["cpu", "memory", "pods"]);

/** "0/1 nodes are available: 1 Insufficient cpu. preemption: ...", as FitError.Error() words it. */
export function failureSummary(cfg: SchedulingDoc, perNode: Misfit[][]): string {
  const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const reasons = new Map<string, number>();
  const preemption = new Map<string, number>();
  for (const why of perNode) {
    for (const m of why)
      count(reasons, render(cfg.reasons[m.kind].text, { taint: m.kind === "taint" ? m.taint : "" }));
    const blocker = why.find((m) => !RESOURCE.has(m.kind)) ?? why[0];
    if (blocker) count(preemption, cfg.reasons[blocker.kind].preemption);
  }
  const hist = (m: Map<string, number>) =>
    [...m]
      .map(([k, n]) => `${n} ${k}`)
      .sort()
      .join(", ");
  return render(cfg.summary, { nodes: perNode.length, reasons: hist(reasons), preemption: hist(preemption) });
}

export function installScheduler(ctx: SimContext): void {
  const { store, registry, runtime, events, clock } = ctx;
  const cfg = ctx.stages.pod.scheduling;
  const waiting = new Set<string>(); // unschedulable pods
  const retryAt = new Map<string, number>(); // one periodic retry pending per pod

  const retryAll = () => {
    for (const k of waiting) runtime.enqueue(SCHEDULER, k);
  };

  runtime.register(SCHEDULER, (key) => {
    const [ns, name] = splitKey(key);
    const pod = registry.tryGet(R("Pod"), ns, name) as Pod | undefined;
    const mine =
      pod &&
      (pod.spec?.schedulerName ?? "default-scheduler") === "default-scheduler" &&
      !pod.spec?.schedulingGates?.length;
    if (!pod || !mine || pod.spec.nodeName || pod.metadata.deletionTimestamp) {
      waiting.delete(key);
      retryAt.delete(key);
      return;
    }
    const nodes = registry.list(R("Node"), undefined) as Node[];
    const bound = new Map<string, Pod[]>();
    for (const p of store.list(R("Pod")) as Pod[]) {
      if (!p.spec?.nodeName || isTerminated(p)) continue;
      bound.set(p.spec.nodeName, [...(bound.get(p.spec.nodeName) ?? []), p]);
    }
    const results = nodes.map((n) => ({ node: n, why: misfits(pod, n, bound.get(n.metadata.name!) ?? []) }));
    const fits = results.filter((r) => r.why.length === 0);
    const now = registry.now();
    if (fits.length) {
      const best = fits.reduce((a, b) =>
        score(pod, b.node, bound.get(b.node.metadata.name!) ?? []) >
        score(pod, a.node, bound.get(a.node.metadata.name!) ?? [])
          ? b
          : a,
      );
      const nodeName = best.node.metadata.name!;
      const cond = { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now };
      const status = {
        ...(pod.status ?? {}),
        phase: pod.status?.phase ?? "Pending",
        conditions: [
          ...(pod.status?.conditions ?? []).filter((c: PodCondition) => c.type !== "PodScheduled"),
          cond,
        ],
      };
      const bound_ = registry.update(
        R("Pod"),
        ns,
        name,
        { ...pod, spec: { ...pod.spec, nodeName }, status },
        { force: true },
      );
      waiting.delete(key);
      const e = cfg.scheduled;
      events.record(
        bound_,
        e.type ?? "Normal",
        e.reason,
        render(e.message, { namespace: ns, pod: name, node: nodeName }),
        { component: "default-scheduler" },
      );
      return;
    }
    const summary = nodes.length
      ? failureSummary(
          cfg,
          results.map((r) => r.why),
        )
      : "no nodes available to schedule pods";
    const prev = (pod.status?.conditions ?? []).find((c: PodCondition) => c.type === "PodScheduled");
    const cond = {
      type: "PodScheduled",
      status: "False",
      lastProbeTime: null,
      lastTransitionTime: prev?.status === "False" ? prev.lastTransitionTime : now,
      reason: "Unschedulable",
      message: summary,
    };
    const status = {
      ...(pod.status ?? {}),
      phase: "Pending",
      conditions: [
        ...(pod.status?.conditions ?? []).filter((c: PodCondition) => c.type !== "PodScheduled"),
        cond,
      ],
    };
    const latest = isDeepStrictEqual(pod.status, status)
      ? pod
      : registry.update(R("Pod"), ns, name, { ...pod, status }, { force: true });
    const e = cfg.failed;
    events.record(latest, e.type ?? "Warning", e.reason, render(e.message, { summary }), {
      component: "default-scheduler",
    });
    waiting.add(key);
    if ((retryAt.get(key) ?? 0) <= clock.now()) {
      retryAt.set(key, clock.now() + cfg.retry);
      runtime.enqueueAfter(SCHEDULER, key, cfg.retry);
    }
  });

  store.subscribe((e) => {
    const o = e.object;
    if (e.rt.kind === "Node") {
      const relevant = (n?: KObject) => n && [n.metadata.labels, n.spec, (n as Node).status?.allocatable];
      if (e.type === "ADDED" || !isDeepStrictEqual(relevant(e.old), relevant(o))) retryAll();
      return;
    }
    if (e.rt.kind !== "Pod") return;
    const pod = o as Pod;
    const old = e.old as Pod | undefined;
    if (e.type === "DELETED") {
      waiting.delete(keyOf(o));
      if (pod.spec?.nodeName) retryAll();
    } else if (!pod.spec?.nodeName) {
      // a new pod, or a changed spec (tolerations, a gate removed); not our own status writes
      if (e.type === "ADDED") {
        if (cfg.delay > 0) runtime.enqueueAfter(SCHEDULER, keyOf(o), cfg.delay);
        else runtime.enqueue(SCHEDULER, keyOf(o));
      } else if (!isDeepStrictEqual(old?.spec, pod.spec)) runtime.enqueue(SCHEDULER, keyOf(o));
    } else if (isTerminated(pod) && old && !isTerminated(old)) retryAll();
  });
}
