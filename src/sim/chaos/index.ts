// Chaos Mesh 2.x in the embedded cluster: one experiment controller for StressChaos,
// NetworkChaos, PodChaos, IOChaos and HTTPChaos, and the glue that keeps the FaultBook true to the pods:
// a pod that leaves takes its injections with it, a restarted container loses its IO injection
// and its stressors, and whenever a pod's faults change the kubelet looks at it again (probes,
// usage, OOM, exits).

import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { KUBELET } from "../context/runtime.js";
import { keyOf } from "../core/meta.js";
import type { Pod } from "../core/objects.js";
import { CHAOS_CONTROLLER, ExperimentController } from "./controller.js";
import { httpApplier } from "./http.js";
import { ioApplier } from "./io.js";
import { networkApplier } from "./network.js";
import { podApplier } from "./pod.js";
import { CHAOS_KINDS } from "./spec.js";
import { stressApplier } from "./stress.js";

export { CHAOS_CONTROLLER } from "./controller.js";

export function installChaosControllers(ctx: SimContext): ExperimentController {
  const { store, runtime, faults } = ctx;
  const io = ioApplier(faults);
  const stress = stressApplier(faults);
  const controller = new ExperimentController(
    ctx,
    {
      StressChaos: stress.applier,
      NetworkChaos: networkApplier(),
      PodChaos: podApplier(),
      IOChaos: io.applier,
      HTTPChaos: httpApplier(),
    },
    (source) => {
      io.forget(source);
      stress.forget(source);
    },
  );
  runtime.register(CHAOS_CONTROLLER, (key) => controller.reconcile(key));

  store.subscribe((e) => {
    const kind = e.rt.kind;
    if ((CHAOS_KINDS as readonly string[]).includes(kind) && e.rt.group === "chaos-mesh.org") {
      if (e.type === "DELETED") controller.gone(e.object);
      else runtime.enqueue(CHAOS_CONTROLLER, `${kind}|${keyOf(e.object)}`);
      return;
    }
    if (kind !== "Pod") return;
    const uid = e.object.metadata.uid!;
    const pod = e.object as Pod;
    io.podChanged(pod, e.type === "DELETED");
    stress.podChanged(pod, e.type === "DELETED");
    if (e.type === "DELETED") for (const r of faults.forPod(uid)) faults.remove(r.source, uid);
  });

  // The kubelet re-reads the Behavior on every sync: have it sync the pod whose faults changed.
  faults.onChange((uid) => {
    const pod = (store.list(R("Pod")) as Pod[]).find((p) => p.metadata.uid === uid);
    if (pod?.spec?.nodeName) runtime.enqueue(KUBELET, keyOf(pod));
  });
  return controller;
}
