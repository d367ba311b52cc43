// PodChaos. pod-failure patches every container image of the pod to the pause image and keeps the
// originals in annotations (restored on recovery): the kubelet restarts the containers with pause,
// which serves nothing. pod-kill deletes the pod (spec.gracePeriod). container-kill has the
// runtime SIGKILL the named containers, which the kubelet then restarts. Both kills act once.
import { R } from "../api/resources.js";
import { KUBELET } from "../context/runtime.js";
import type { Pod } from "../core/objects.js";
import { killContainer } from "../workloads/faulted.js";
import { type Applier, type ApplyEnv, fail, notFound, ok, runningStatus, type Target } from "./applier.js";
import { type ChaosObject, PAUSE_IMAGE } from "./spec.js";

/** annotation.GenKeyForImage: where the original image of a container is kept. */
export function imageKey(chaos: ChaosObject, container: string, init: boolean): string {
  const name = `${container}-${init ? "init" : "normal"}`;
  const key = `chaos-mesh-${chaos.metadata.name}-${chaos.spec?.action}-${name}-image`;
  return key.length > 63 ? name : key;
}

/** Swap images (apply) or put the originals back (recover) through the API, as a merge patch. */
function patchImages(env: ApplyEnv, pod: Pod, swap: boolean): void {
  const next = structuredClone(pod);
  const ann: Record<string, string> = { ...(next.metadata.annotations ?? {}) };
  for (const [field, init] of [
    ["containers", false],
    ["initContainers", true],
  ] as const) {
    for (const c of next.spec?.[field] ?? []) {
      const key = imageKey(env.chaos, c.name, init);
      if (swap && !(key in ann)) {
        // the API server refuses a container without an image
        ann[key] = c.image!;
        c.image = PAUSE_IMAGE;
      } else if (!swap && key in ann) {
        c.image = ann[key];
        delete ann[key];
      }
    }
  }
  next.metadata.annotations = ann;
  env.ctx.registry.update(R("Pod"), pod.metadata.namespace, pod.metadata.name!, next, { force: true });
}

function podFailure(): Applier {
  return {
    apply(env, t) {
      if (!t.pod) return fail(notFound(t));
      patchImages(env, t.pod, true);
      env.ctx.faults.add({
        source: env.source,
        podUid: t.pod.metadata.uid!,
        fault: { kind: "pod-failure" },
        since: env.now,
      });
      return ok({ podUid: t.pod.metadata.uid! });
    },
    recover(env, t, inj) {
      if (inj) env.ctx.faults.remove(env.source, inj.podUid);
      // a pod that is gone needs nothing back (NotFound counts as recovered)
      if (t.pod && !t.pod.metadata.deletionTimestamp) patchImages(env, t.pod, false);
      return ok();
    },
  };
}

function podKill(): Applier {
  return {
    apply(env, t) {
      if (!t.pod) return fail(notFound(t));
      const grace = Number(env.chaos.spec?.gracePeriod ?? 0);
      env.ctx.registry.delete(R("Pod"), t.ns, t.podName, { gracePeriodSeconds: grace });
      return ok({ podUid: t.pod.metadata.uid! });
    },
    recover: () => ok(),
  };
}

function containerKill(): Applier {
  return {
    apply(env, t: Target) {
      if (!t.pod) return fail(notFound(t));
      const st = runningStatus(t.pod, t.container);
      if (!st) return fail(`container ${t.container} of pod ${t.ns}/${t.podName} is not running`);
      killContainer(env.ctx.faults, t.pod.metadata.uid!, t.container!, env.now);
      env.ctx.runtime.enqueue(KUBELET, `${t.ns}/${t.podName}`);
      return ok({ podUid: t.pod.metadata.uid!, containerId: st.containerID });
    },
    recover: () => ok(),
  };
}

export function podApplier(): Applier {
  const byAction: Record<string, Applier> = {
    "pod-failure": podFailure(),
    "pod-kill": podKill(),
    "container-kill": containerKill(),
  };
  const pick = (env: ApplyEnv) => byAction[env.chaos.spec?.action ?? ""];
  return {
    apply: (env, t) => pick(env)?.apply(env, t) ?? fail(`unknown action ${env.chaos.spec?.action}`),
    recover: (env, t, inj) => pick(env)?.recover(env, t, inj) ?? ok(),
  };
}
