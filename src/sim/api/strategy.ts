// What kube-apiserver's REST strategies do to an object before it is stored (PrepareForCreate),
// beyond defaulting: fields the server owns whatever the client sent.
import { isDeepStrictEqual } from "node:util";
import type { Namespace } from "../core/objects.js";
import type { KObject } from "../core/types.js";

/** apps/v1 carries a DaemonSet's spec.templateGeneration in this annotation (conversion.go). */
const TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

const templateOf = (o: KObject) => (o.spec as { template?: unknown } | undefined)?.template;

const STRATEGIES: Record<string, (o: KObject) => void> = {
  // pkg/registry/apps/daemonset/strategy.go: templateGeneration starts at 1
  DaemonSet(o) {
    const given = Number(o.metadata.annotations?.[TEMPLATE_GENERATION]);
    o.metadata.annotations = {
      ...(o.metadata.annotations ?? {}),
      [TEMPLATE_GENERATION]: String(given >= 1 ? Math.trunc(given) : 1),
    };
  },
  // pkg/registry/core/resourcequota/strategy.go: status is the quota controller's
  ResourceQuota(o) {
    delete o.status;
  },
  // pkg/registry/core/namespace/strategy.go: "on create, status is active", and the kubernetes
  // finalizer is required (appended when the client listed others)
  Namespace(o) {
    const ns = o as Namespace;
    ns.status = { phase: "Active" };
    ns.spec = { ...(ns.spec ?? {}) };
    const finalizers = ns.spec.finalizers ?? [];
    ns.spec.finalizers = finalizers.includes("kubernetes") ? finalizers : [...finalizers, "kubernetes"];
  },
};

export function prepareForCreate(obj: KObject): void {
  STRATEGIES[obj.kind]?.(obj);
}

/**
 * PrepareForUpdate: a namespace's finalizers change only through /finalize
 * (namespaceStrategy.PrepareForUpdate keeps the old ones; namespaceFinalizeStrategy takes the new);
 * a DaemonSet's templateGeneration is the server's, one more each time the template changes.
 */
export function prepareForUpdate(old: KObject, next: KObject, subresource: string | undefined): void {
  if (old.kind === "DaemonSet" && subresource !== "status") {
    const was = Number(old.metadata.annotations?.[TEMPLATE_GENERATION]) || 1;
    const now = isDeepStrictEqual(templateOf(old), templateOf(next)) ? was : was + 1;
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [TEMPLATE_GENERATION]: String(now) };
    return;
  }
  if (old.kind !== "Namespace" || subresource === "finalize") return;
  const finalizers = (old as Namespace).spec?.finalizers;
  const spec = { ...((next as Namespace).spec ?? {}) };
  if (finalizers) spec.finalizers = finalizers;
  else delete spec.finalizers;
  (next as Namespace).spec = spec;
}
