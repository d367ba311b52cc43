// LimitRanger, as kube-apiserver's plugin does it (plugin/pkg/admission/limitranger/admission.go),
// and the LimitRange's own defaults (pkg/apis/core/v1/defaults.go SetDefaults_LimitRangeItem).
// - Mutating, on pod CREATE only: every LimitRange of the namespace in turn gives each container
//   and init container the `defaultRequest` and `default` (limit) of its Container item for what it
//   does not set, and says so in the kubernetes.io/limit-ranger annotation ("LimitRanger plugin
//   set: memory request for container app; memory limit for container app"). A pod admitted
//   before the LimitRange keeps what it had: nothing touches running pods.
// - Validating: min, max and maxLimitRequestRatio of the Container items per container, of the
//   Pod items over the pod's sums; the failures, aggregated, refuse the pod with 403 Forbidden.

import type { Container, Pod } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import type { Store } from "../../store/store.js";
import { qosClass } from "../defaults.js";
import type { AdmissionRequest } from "../registry.js";
import { R } from "../resources.js";
import { ApiError } from "../status.js";
import { addQty, canonicalQty, formatQty, parseQty, type Qty, ZERO } from "./quantity.js";

type ResourceList = Record<string, string>;

export interface LimitRangeItem {
  type?: string;
  min?: ResourceList;
  max?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

interface LimitRange extends KObject {
  spec?: { limits?: LimitRangeItem[] };
}

const FIELDS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"] as const;

/**
 * The LimitRange's defaults: a Container item's default limit is its max when not given, its
 * default request its default limit, else its min. Quantities are stored canonical.
 */
export function defaultLimitRange(o: KObject): void {
  const lr = o as LimitRange;
  for (const item of lr.spec?.limits ?? []) {
    for (const f of FIELDS) {
      const list = item[f];
      if (list) for (const k of Object.keys(list)) list[k] = canonicalQty(list[k]);
    }
    if (item.type !== "Container") continue;
    const def: ResourceList = { ...item.default };
    for (const [k, v] of Object.entries(item.max ?? {})) def[k] ??= v;
    const req: ResourceList = { ...item.defaultRequest };
    for (const [k, v] of Object.entries(def)) req[k] ??= v;
    for (const [k, v] of Object.entries(item.min ?? {})) req[k] ??= v;
    if (Object.keys(def).length) item.default = def;
    if (Object.keys(req).length) item.defaultRequest = req;
  }
}

const isPodCreate = (req: AdmissionRequest) =>
  req.operation === "CREATE" && req.rt.kind === "Pod" && !req.subresource;

const LR = () => R("LimitRange");

/** mergeContainerResources: fill what the container does not set; say what was set. */
function merge(c: Container, item: LimitRangeItem, what: string, notes: string[]): void {
  c.resources ??= {};
  const limits: ResourceList = { ...(c.resources.limits as ResourceList | undefined) };
  const requests: ResourceList = { ...(c.resources.requests as ResourceList | undefined) };
  const setLimits = Object.keys(item.default ?? {}).filter((k) => !(k in limits));
  const setRequests = Object.keys(item.defaultRequest ?? {}).filter((k) => !(k in requests));
  for (const k of setLimits) limits[k] = item.default![k];
  for (const k of setRequests) requests[k] = item.defaultRequest![k];
  if (Object.keys(limits).length) c.resources.limits = limits;
  if (Object.keys(requests).length) c.resources.requests = requests;
  if (setRequests.length) notes.push(`${setRequests.sort().join(", ")} request for ${what} ${c.name}`);
  if (setLimits.length) notes.push(`${setLimits.sort().join(", ")} limit for ${what} ${c.name}`);
}

export function limitRangerMutation(store: Store) {
  return (req: AdmissionRequest): void => {
    if (!isPodCreate(req)) return;
    const pod = req.obj as Pod;
    let changed = false;
    for (const lr of store.list(LR(), pod.metadata.namespace) as LimitRange[]) {
      const items = (lr.spec?.limits ?? []).filter((l) => l.type === "Container");
      if (!items.length) continue;
      // the Container items' defaults merged, the later winning (defaultContainerResourceRequirements)
      const item: LimitRangeItem = {
        default: Object.assign({}, ...items.map((l) => l.default)),
        defaultRequest: Object.assign({}, ...items.map((l) => l.defaultRequest)),
      };
      const notes: string[] = [];
      for (const c of pod.spec?.containers ?? []) merge(c, item, "container", notes);
      for (const c of pod.spec?.initContainers ?? []) merge(c, item, "init container", notes);
      if (!notes.length) continue;
      changed = true;
      pod.metadata.annotations = {
        ...pod.metadata.annotations,
        "kubernetes.io/limit-ranger": `LimitRanger plugin set: ${notes.join("; ")}`,
      };
    }
    // the pod strategy computes the QoS class after mutating admission (PrepareForCreate)
    if (changed && pod.status) pod.status.qosClass = qosClass(pod.spec);
  };
}

const q = (s: string | undefined) => (s === undefined ? undefined : parseQty(s));
const show = (x: Qty) => formatQty(x);

function minConstraint(
  type: string,
  res: string,
  enforced: Qty,
  requests: Usage,
  limits: Usage,
): string | undefined {
  const req = requests.get(res);
  const lim = limits.get(res);
  if (!req) return `minimum ${res} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (req.milli < enforced.milli)
    return `minimum ${res} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  if (lim && lim.milli < enforced.milli)
    return `minimum ${res} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  return undefined;
}

function maxConstraint(
  type: string,
  res: string,
  enforced: Qty,
  requests: Usage,
  limits: Usage,
): string | undefined {
  const req = requests.get(res);
  const lim = limits.get(res);
  if (!lim) return `maximum ${res} usage per ${type} is ${show(enforced)}.  No limit is specified`;
  if (lim.milli > enforced.milli)
    return `maximum ${res} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  if (req && req.milli > enforced.milli)
    return `maximum ${res} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

function ratioConstraint(
  type: string,
  res: string,
  enforced: Qty,
  requests: Usage,
  limits: Usage,
): string | undefined {
  const req = requests.get(res);
  const lim = limits.get(res);
  const max = show(enforced);
  if (!req || req.milli === 0)
    return `${res} max limit to request ratio per ${type} is ${max}, but no request is specified or request is 0`;
  if (!lim || lim.milli === 0)
    return `${res} max limit to request ratio per ${type} is ${max}, but no limit is specified or limit is 0`;
  const ratio = lim.milli / req.milli;
  if (ratio * 1000 > enforced.milli)
    return `${res} max limit to request ratio per ${type} is ${max}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

type Usage = Map<string, Qty>;

function listOf(r: Record<string, unknown> | undefined): Usage {
  const out: Usage = new Map();
  for (const [k, v] of Object.entries(r ?? {})) {
    const x = q(String(v));
    if (x) out.set(k, x);
  }
  return out;
}

/** podRequests / podLimits: the containers' sums, or the largest init container's. */
function podSum(pod: Pod, kind: "requests" | "limits"): Usage {
  const out: Usage = new Map();
  for (const c of pod.spec?.containers ?? [])
    for (const [k, v] of listOf(c.resources?.[kind])) out.set(k, addQty(out.get(k) ?? ZERO, v));
  for (const c of pod.spec?.initContainers ?? [])
    for (const [k, v] of listOf(c.resources?.[kind])) if (v.milli > (out.get(k)?.milli ?? -1)) out.set(k, v);
  return out;
}

function check(item: LimitRangeItem, type: string, requests: Usage, limits: Usage, errs: string[]): void {
  const run = (list: ResourceList | undefined, f: typeof minConstraint) => {
    for (const [res, v] of Object.entries(list ?? {})) {
      const enforced = q(v);
      const e = enforced && f(type, res, enforced, requests, limits);
      if (e) errs.push(e);
    }
  };
  run(item.min, minConstraint);
  run(item.max, maxConstraint);
  run(item.maxLimitRequestRatio, ratioConstraint);
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several in brackets, duplicates once. */
function aggregate(errs: string[]): string {
  const uniq = [...new Set(errs)];
  return uniq.length === 1 ? uniq[0] : `[${uniq.join(", ")}]`;
}

export function limitRangerValidation(store: Store) {
  return (req: AdmissionRequest): void => {
    if (!isPodCreate(req)) return;
    const pod = req.obj as Pod;
    for (const lr of store.list(LR(), pod.metadata.namespace) as LimitRange[]) {
      const errs: string[] = [];
      for (const item of lr.spec?.limits ?? []) {
        if (item.type === "Container")
          for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])])
            check(item, "Container", listOf(c.resources?.requests), listOf(c.resources?.limits), errs);
        if (item.type === "Pod") check(item, "Pod", podSum(pod, "requests"), podSum(pod, "limits"), errs);
      }
      if (errs.length) throw forbidden(pod, aggregate(errs));
    }
  };
}

/** admission.NewForbidden: the object's name (generated by now), its resource, the reason. */
export function forbidden(obj: KObject, reason: string, resource = "pods", group = ""): ApiError {
  const name = obj.metadata.name ?? obj.metadata.generateName ?? "Unknown";
  return new ApiError(
    403,
    "Forbidden",
    `${group ? `${resource}.${group}` : resource} "${name}" is forbidden: ${reason}`,
    { name, ...(group ? { group } : {}), kind: resource },
  );
}
