// The node kernel's running accounts, one per cluster: the counters of every container's cgroup
// and every pod's interface (meters.ts), started when a container starts running and brought up
// to date whenever what drives them may change: a fault injected or recovered anywhere (it changes
// load up and down the call graph), or a pod of the namespace changing (who serves, restarts).
// The view's model must hear of a change first (the workloads' traffic subscribes before this
// does), so the new rates are taken from the changed world at the instant of the change.

import { R } from "../../api/resources.js";
import type { SimContext } from "../../context/context.js";
import { podReady } from "../../core/meta.js";
import type { Pod } from "../../core/objects.js";
import { containerRef } from "../../metrics/usage.js";
import { cpuMeterKey, cpuRates } from "./cgroup.js";
import { Meters } from "./meters.js";
import { netMeterKey, netRates } from "./netdev.js";
import { type KernelView, NO_VIEW } from "./view.js";

export class KernelState {
  readonly meters = new Meters();

  constructor(
    readonly ctx: SimContext,
    readonly view: KernelView,
  ) {
    ctx.faults.onChange(() => this.meters.checkpoint("", ctx.clock.now()));
    ctx.store.subscribe((e) => {
      if (e.rt.kind !== "Pod") return;
      const pod = e.object as Pod;
      const ns = pod.metadata.namespace ?? "";
      // who serves changed: the load moves along the namespace's call graph; else only this pod
      const was = e.old as Pod | undefined;
      const scope = !was || serving(was) !== serving(pod) ? `${ns}/` : `${ns}/${pod.metadata.uid}/`;
      this.meters.checkpoint(scope, ctx.clock.now());
      if (e.type === "DELETED") this.meters.forget(`${ns}/${pod.metadata.uid}/`);
      else this.track(pod);
    });
  }

  /** Start the accounts of a pod's running containers and of its interface. */
  private track(obj: Pod): void {
    const { ctx } = this;
    const pod = ctx.store.get(R("Pod"), obj.metadata.namespace, obj.metadata.name!) as Pod | undefined;
    if (!pod || pod.metadata.uid !== obj.metadata.uid) return;
    const now = ctx.clock.now();
    const ns = pod.metadata.namespace ?? "";
    let running = false;
    for (const c of pod.spec?.containers ?? []) {
      const ref = containerRef(pod, c.name, ctx.clock);
      if (!ref) continue;
      running = true;
      const key = cpuMeterKey(pod, c.name, ref.restartCount);
      if (!this.meters.has(key))
        this.meters.read(key, now, ref.startedAt, () =>
          cpuRates(ctx, ns, pod.metadata.name!, c.name, ref.restartCount),
        );
    }
    const net = netMeterKey(pod);
    if (running && pod.status?.podIP && !this.meters.has(net))
      this.meters.read(net, now, now, () =>
        netRates(ctx, this.view, ns, pod.metadata.name!, pod.metadata.uid!),
      );
  }
}

const serving = (p: Pod) =>
  `${p.status?.phase}|${p.status?.podIP}|${podReady(p)}|${!!p.metadata.deletionTimestamp}`;

const states = new WeakMap<SimContext, KernelState>();

/** The cluster's kernel accounts (the first caller's view is the one kept: exec's). */
export function kernelOf(ctx: SimContext, view: KernelView = NO_VIEW): KernelState {
  let k = states.get(ctx);
  if (!k) {
    k = new KernelState(ctx, view);
    states.set(ctx, k);
  }
  return k;
}
