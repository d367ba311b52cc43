// Taint-based eviction, as kube-controller-manager's taint eviction controller does it
// (pkg/controller/tainteviction/taint_eviction.go): a pod on a node with NoExecute taints it
// does not all tolerate is deleted at once; one that tolerates them for a while
// (tolerationSeconds) is deleted when the shortest of those runs out on the cluster clock,
// counted from when the taint was seen; removing the taint or adding a toleration cancels it.
// Before deleting, the pod gets the DisruptionTarget condition.
import { isDeepStrictEqual } from "node:util";
import { markDisruptionTarget } from "../api/eviction.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { keyOf, splitKey } from "../core/meta.js";
import { toleratesTaint } from "../core/node-match.js";
import type { Node, Pod, Taint, Toleration } from "../core/objects.js";
import type { KObject } from "../core/types.js";

const NAME = "taint-eviction";
const SOURCE = { component: "taint-eviction-controller" };

/** -1: tolerated forever; otherwise the ms after which the pod must go (0: now). */
function tolerationTime(pod: Pod, taints: Taint[]): number {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = (pod.spec?.tolerations ?? []).find((x: Toleration) => toleratesTaint(x, taint));
    if (!t) return 0;
    used.push(t);
  }
  let min = Number.POSITIVE_INFINITY;
  for (const t of used) {
    if (typeof t.tolerationSeconds !== "number") continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds * 1000);
  }
  return min === Number.POSITIVE_INFINITY ? -1 : min;
}

export function installTaintEvictionController(ctx: SimContext): void {
  const { store, registry, runtime, events, clock } = ctx;
  /** pod key -> when its eviction was scheduled and when it fires (cluster ms) */
  const scheduled = new Map<string, { created: number; fire: number; cancel: () => void }>();
  const podRef = (key: string, uid?: string): KObject => {
    const [ns, name] = splitKey(key);
    return { apiVersion: "v1", kind: "Pod", metadata: { namespace: ns, name, uid } };
  };
  const cancel = (key: string) => {
    const s = scheduled.get(key);
    if (!s) return;
    s.cancel();
    scheduled.delete(key);
    events.record(podRef(key), "Normal", "TaintManagerEviction", `Cancelling deletion of Pod ${key}`, SOURCE);
  };
  const fire = (key: string) => {
    scheduled.delete(key);
    const [ns, name] = splitKey(key);
    const pod = registry.tryGet(R("Pod"), ns, name) as Pod | undefined;
    if (!pod || pod.metadata.deletionTimestamp) return;
    events.record(pod, "Normal", "TaintManagerEviction", `Marking for deletion Pod ${key}`, SOURCE);
    markDisruptionTarget(
      registry,
      pod,
      "DeletionByTaintManager",
      "Taint manager: deleting due to NoExecute taint",
    );
    registry.delete(R("Pod"), ns, name);
  };

  runtime.register(NAME, (key) => {
    const [ns, name] = splitKey(key);
    const pod = registry.tryGet(R("Pod"), ns, name) as Pod | undefined;
    const node =
      pod?.spec?.nodeName && (registry.tryGet(R("Node"), undefined, pod.spec.nodeName) as Node | undefined);
    const taints: Taint[] = node
      ? (node.spec?.taints ?? []).filter((t: Taint) => t.effect === "NoExecute")
      : [];
    if (!pod || pod.metadata.deletionTimestamp || taints.length === 0) return cancel(key);
    const wait = tolerationTime(pod, taints);
    if (wait < 0) return cancel(key);
    const now = clock.now();
    const prev = scheduled.get(key);
    const created = prev?.created ?? now;
    if (prev && prev.fire <= created + wait) return; // already due no later
    if (prev) cancel(key);
    if (created + wait <= now) return fire(key);
    const stop = clock.after(created + wait - now, () => fire(key));
    scheduled.set(key, { created, fire: created + wait, cancel: stop });
  });

  const noExecute = (n?: KObject) =>
    ((n as Node | undefined)?.spec?.taints ?? []).filter((t: Taint) => t.effect === "NoExecute");
  store.subscribe((e) => {
    if (e.rt.kind === "Node") {
      if (e.type !== "DELETED" && isDeepStrictEqual(noExecute(e.old), noExecute(e.object))) return;
      for (const p of store.list(R("Pod")) as Pod[])
        if (p.spec?.nodeName === e.object.metadata.name) runtime.enqueue(NAME, keyOf(p));
    } else if (e.rt.kind === "Pod") {
      const o = e.object as Pod;
      const old = e.old as Pod | undefined;
      if (e.type === "DELETED") {
        const s = scheduled.get(keyOf(o));
        s?.cancel();
        scheduled.delete(keyOf(o));
        return;
      }
      const same =
        old &&
        isDeepStrictEqual(old.spec?.tolerations, o.spec?.tolerations) &&
        old.spec?.nodeName === o.spec?.nodeName;
      if (!same && o.spec?.nodeName) runtime.enqueue(NAME, keyOf(o));
    }
  });
}
