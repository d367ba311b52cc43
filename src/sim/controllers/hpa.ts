// HorizontalPodAutoscalers, as kube-controller-manager's horizontal-pod-autoscaler controller runs
// them (pkg/controller/podautoscaler/horizontal.go): every --horizontal-pod-autoscaler-sync-period
// (15 s) of cluster time each HPA reads its target's scale, asks the resource metrics API for its
// pods' usage (what `kubectl top` shows: hpa-replicas.ts), normalizes the proposal (hpa-rules.ts),
// writes the target's scale, and records SuccessfulRescale events and its status. A target scaled
// by hand outside [minReplicas, maxReplicas], or against the metric, is set back at the next sync.
import { isDeepStrictEqual } from "node:util";
import type { MetricsSource } from "../api/hooks.js";
import { R, resourceOfKind } from "../api/resources.js";
import { type LabelSelectorSpec, parseLabelSelector, selectorToString } from "../api/selectors.js";
import { ApiError } from "../api/status.js";
import type { SimContext } from "../context/context.js";
import { stamp } from "../core/clock.js";
import { keyOf, splitKey } from "../core/meta.js";
import type { Condition, HorizontalPodAutoscaler, KObject, MetricStatus, Pod } from "../core/objects.js";
import type { ResourceType } from "../core/types.js";
import { MetricError, milliValue, resourceReplicas } from "./hpa-replicas.js";
import { type Behavior, HpaMemory, setCondition } from "./hpa-rules.js";

const NAME = "horizontal-pod-autoscaler";
const SOURCE = { component: "horizontal-pod-autoscaler" };
/** --horizontal-pod-autoscaler-sync-period. */
export const HPA_SYNC_MS = 15_000;

interface ResourceSource {
  name?: string;
  container?: string;
  target?: { type?: string; averageUtilization?: number; averageValue?: string };
}
interface Spec {
  [field: string]: unknown;
  type?: string;
  resource?: ResourceSource;
  containerResource?: ResourceSource;
}

interface Scalable extends KObject {
  spec?: { replicas?: number; selector?: LabelSelectorSpec };
  status?: { replicas?: number };
}

/** The metrics source is metrics-server's, which the cluster starts when it serves the API. */
export type MetricsLookup = () => MetricsSource | undefined;

export function installHpaController(ctx: SimContext, metrics: MetricsLookup): void {
  const { store, runtime } = ctx;
  const memory = new HpaMemory();
  const waiting = new Set<string>();
  // every add, change or sync is queued a resync period ahead, and an HPA waits in the queue once
  // (the controller's fixed-interval rate limiter): each one is looked at every 15 s
  const later = (key: string) => {
    if (waiting.has(key)) return;
    waiting.add(key);
    runtime.enqueueAfter(NAME, key, HPA_SYNC_MS);
  };
  runtime.register(NAME, (key) => {
    waiting.delete(key);
    const [ns, name] = splitKey(key);
    const hpa = ctx.registry.tryGet(R("HorizontalPodAutoscaler"), ns, name) as
      | HorizontalPodAutoscaler
      | undefined;
    if (!hpa) {
      memory.forget(key);
      return;
    }
    later(key);
    reconcile(ctx, metrics(), memory, hpa, key);
  });
  store.subscribe((e) => {
    if (e.rt.kind !== "HorizontalPodAutoscaler") return;
    const key = keyOf(e.object);
    if (e.type === "DELETED") memory.forget(key);
    else later(key);
  });
}

interface Target {
  rt: ResourceType;
  obj: Scalable;
  replicas: number;
  selector: string;
}

/** scaleForResourceMappings: the target's scale subresource, or the error a client would get. */
function scaleOf(ctx: SimContext, hpa: HorizontalPodAutoscaler): Target {
  const ref = hpa.spec.scaleTargetRef;
  const group = String(ref.apiVersion ?? "").includes("/") ? String(ref.apiVersion).split("/")[0] : "";
  const rt = resourceOfKind(ref.kind, group);
  if (!rt || rt.group !== group || !rt.subresources?.includes("scale"))
    throw new ApiError(404, "NotFound", `no matches for kind "${ref.kind}" in group "${group}"`);
  const obj = ctx.registry.get(rt, hpa.metadata.namespace, ref.name) as Scalable;
  const sel = obj.spec?.selector;
  return {
    rt,
    obj,
    replicas: obj.spec?.replicas ?? 0,
    // a ReplicationController's selector is a plain label map
    selector: selectorToString(
      rt.kind === "ReplicationController" ? { matchLabels: sel as Record<string, string> } : sel,
    ),
  };
}

function reconcile(
  ctx: SimContext,
  source: MetricsSource | undefined,
  memory: HpaMemory,
  shared: HorizontalPodAutoscaler,
  key: string,
): void {
  const hpa = structuredClone(shared);
  const original = structuredClone(hpa.status ?? {});
  hpa.status ??= { desiredReplicas: 0 };
  const status = hpa.status;
  status.conditions ??= [];
  const conditions = status.conditions as Condition[];
  const now = ctx.clock.now();
  const set = (type: string, st: "True" | "False", reason: string, message: string) =>
    setCondition(conditions, stamp(ctx.clock, now), type, st, reason, message);
  const warn = (reason: string, message: string) =>
    ctx.events.record(hpa, "Warning", reason, message, SOURCE);
  const save = () => saveStatus(ctx, original, hpa);

  let target: Target;
  try {
    target = scaleOf(ctx, hpa);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    warn("FailedGetScale", e.message);
    set(
      "AbleToScale",
      "False",
      "FailedGetScale",
      `the HPA controller was unable to get the target's current scale: ${e.message}`,
    );
    save();
    return;
  }
  set(
    "AbleToScale",
    "True",
    "SucceededGetScale",
    "the HPA controller was able to get the target's current scale",
  );
  const current = target.replicas;
  memory.recordInitial(key, current, now);
  const min = hpa.spec.minReplicas ?? 1;
  const max = hpa.spec.maxReplicas;

  let desired = 0;
  let reason = "";
  let statuses: MetricStatus[] = [];
  let rescale = true;
  if (current === 0 && min !== 0) {
    desired = 0;
    rescale = false;
    set(
      "ScalingActive",
      "False",
      "ScalingDisabled",
      "scaling is disabled since the replica count of the target is zero",
    );
  } else if (current > max) {
    reason = "Current number of replicas above Spec.MaxReplicas";
    desired = max;
  } else if (current < min) {
    reason = "Current number of replicas below Spec.MinReplicas";
    desired = min;
  } else {
    const computed = computeReplicas(ctx, source, hpa, target, set, warn);
    statuses = computed.statuses;
    if (computed.replicas < 0) {
      setStatus(status, current, status.desiredReplicas ?? 0, statuses);
      save();
      warn("FailedComputeMetricsReplicas", computed.error!);
      return;
    }
    desired = computed.replicas;
    if (desired > current) reason = `${computed.metric} above target`;
    if (desired < current) reason = "All metrics below target";
    const behavior = hpa.spec.behavior as Behavior | undefined;
    desired = behavior
      ? memory.normalizeWithBehavior(key, now, behavior, current, desired, min, max, set)
      : memory.normalize(key, now, current, desired, min, max, set);
    rescale = desired !== current;
  }

  if (rescale) {
    try {
      const o = target.obj;
      ctx.registry.update(
        target.rt,
        o.metadata.namespace,
        o.metadata.name!,
        { ...o, spec: { ...o.spec, replicas: desired } },
        { subresource: "scale" },
      );
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      warn("FailedRescale", `New size: ${desired}; reason: ${reason}; error: ${e.message}`);
      set(
        "AbleToScale",
        "False",
        "FailedUpdateScale",
        `the HPA controller was unable to update the target scale: ${e.message}`,
      );
      setStatus(status, current, status.desiredReplicas ?? 0, statuses);
      save();
      return;
    }
    set(
      "AbleToScale",
      "True",
      "SucceededRescale",
      `the HPA controller was able to update the target scale to ${desired}`,
    );
    ctx.events.record(hpa, "Normal", "SuccessfulRescale", `New size: ${desired}; reason: ${reason}`, SOURCE);
    memory.storeScaleEvent(key, now, hpa.spec.behavior as Behavior | undefined, current, desired);
    status.lastScaleTime = stamp(ctx.clock, now);
  } else desired = current;
  setStatus(status, current, desired, statuses);
  save();
}

function setStatus(
  status: NonNullable<HorizontalPodAutoscaler["status"]>,
  current: number,
  desired: number,
  metrics: MetricStatus[],
) {
  status.currentReplicas = current;
  status.desiredReplicas = desired;
  status.currentMetrics = metrics;
}

/** updateStatusIfNeeded: a write only when the status changed. */
function saveStatus(ctx: SimContext, original: unknown, hpa: HorizontalPodAutoscaler): void {
  if (isDeepStrictEqual(original, hpa.status)) return;
  const rt = R("HorizontalPodAutoscaler");
  const live = ctx.registry.tryGet(rt, hpa.metadata.namespace, hpa.metadata.name!);
  if (!live || live.metadata.uid !== hpa.metadata.uid) return;
  ctx.registry.update(
    rt,
    hpa.metadata.namespace,
    hpa.metadata.name!,
    { ...live, status: hpa.status },
    { subresource: "status" },
  );
}

interface Computed {
  replicas: number;
  metric: string;
  statuses: MetricStatus[];
  error?: string;
}

/** DecimalSI quantity of a milli value, as resource.NewMilliQuantity prints it. */
export function milliQuantity(milli: number): string {
  if (milli === 0) return "0";
  if (milli % 1000 !== 0) return `${milli}m`;
  let n = milli / 1000;
  for (const s of ["", "k", "M", "G", "T", "P"]) {
    if (n % 1000 !== 0 || s === "P") return `${n}${s}`;
    n /= 1000;
  }
  return `${n}E`;
}

/** computeReplicasForMetrics: the highest proposal of the valid metrics, each metric's status. */
function computeReplicas(
  ctx: SimContext,
  source: MetricsSource | undefined,
  hpa: HorizontalPodAutoscaler,
  target: Target,
  set: (type: string, st: "True" | "False", reason: string, message: string) => void,
  warn: (reason: string, message: string) => void,
): Computed {
  const specs = (hpa.spec.metrics ?? []) as Spec[];
  const ns = hpa.metadata.namespace!;
  if (!target.selector) {
    warn("SelectorRequired", "selector is required");
    set("ScalingActive", "False", "InvalidSelector", "the HPA target's scale is missing a selector");
    return { replicas: -1, metric: "", statuses: [], error: "selector is required" };
  }
  const selector = parseLabelSelector(target.selector);
  const pods = ctx.registry.list(R("Pod"), ns, { labelSelector: target.selector }) as Pod[];
  const statuses: MetricStatus[] = specs.map(() => ({ type: "" }));
  let replicas = 0;
  let metric = "";
  let invalid = 0;
  let firstError = "";
  let firstCondition: [string, string] | undefined;
  specs.forEach((spec, i) => {
    const container = spec.type === "ContainerResource";
    const r = container ? spec.containerResource : spec.resource;
    if ((spec.type !== "Resource" && !container) || !r?.name) {
      // Pods, Object and External metrics come from an adapter this cluster does not run
      invalid++;
      const [reason, err, wrapped] = noAdapter(spec);
      warn(reason, err);
      if (!firstCondition) {
        firstCondition = [reason, `the HPA was unable to compute the replica count: ${err}`];
        firstError = `${wrapped}: ${err}`;
      }
      return;
    }
    const name = r.name;
    const t = r.target ?? {};
    const byValue = t.averageValue !== undefined;
    try {
      if (!byValue && t.averageUtilization === undefined)
        throw new MetricError(
          "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set",
        );
      let p: ReturnType<typeof resourceReplicas>;
      try {
        p = resourceReplicas(
          {
            source,
            clock: ctx.clock,
            resource: name,
            namespace: ns,
            selector,
            pods,
            currentReplicas: target.replicas,
            container: container ? r.container : undefined,
          },
          byValue ? { averageMilli: milliValue(t.averageValue) } : { utilization: t.averageUtilization },
        );
      } catch (e) {
        if (!(e instanceof MetricError)) throw e;
        throw new MetricError(`failed to get ${name} ${byValue ? "usage" : "utilization"}: ${e.message}`);
      }
      const current = byValue
        ? { averageValue: milliQuantity(p.raw) }
        : { averageUtilization: p.utilization, averageValue: milliQuantity(p.raw) };
      statuses[i] = container
        ? { type: "ContainerResource", containerResource: { name, container: r.container ?? "", current } }
        : { type: "Resource", resource: { name, current } };
      const metricName = byValue
        ? `${name} resource`
        : `${name} ${container ? "container " : ""}resource utilization (percentage of request)`;
      if (replicas === 0 || p.replicas > replicas) {
        replicas = p.replicas;
        metric = metricName;
      }
    } catch (e) {
      if (!(e instanceof MetricError)) throw e;
      invalid++;
      // getUnableComputeReplicaCountCondition: an event for each failing metric, the first decides
      const reason = container ? "FailedGetContainerResourceMetric" : "FailedGetResourceMetric";
      warn(reason, e.message);
      if (!firstCondition) {
        firstCondition = [reason, `the HPA was unable to compute the replica count: ${e.message}`];
        firstError = container
          ? `failed to get ${r.container} container metric value: ${e.message}`
          : `failed to get ${name} resource metric value: ${e.message}`;
      }
    }
  });
  if (invalid >= specs.length || (invalid > 0 && replicas < target.replicas)) {
    set("ScalingActive", "False", firstCondition![0], firstCondition![1]);
    return {
      replicas: -1,
      metric: "",
      statuses,
      error: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError}`,
    };
  }
  set(
    "ScalingActive",
    "True",
    "ValidMetricFound",
    `the HPA was able to successfully calculate a replica count from ${metric}`,
  );
  return { replicas, metric, statuses };
}

/** What a metric served by an adapter (custom or external metrics API) fails with when none runs. */
function noAdapter(spec: Spec): [string, string, string] {
  const m = (spec[String(spec.type).charAt(0).toLowerCase() + String(spec.type).slice(1)] ?? {}) as {
    metric?: { name?: string };
    name?: string;
    container?: string;
  };
  const name = m.metric?.name ?? m.name ?? "";
  switch (spec.type) {
    case "External":
      return [
        "FailedGetExternalMetric",
        `unable to get external metric ${name}: unable to fetch metrics from external metrics API: the server could not find the requested resource (get ${name}.external.metrics.k8s.io)`,
        `failed to get ${name} external metric value`,
      ];
    case "Object":
      return [
        "FailedGetObjectMetric",
        `unable to get metric ${name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`,
        "failed to get object metric value",
      ];
    default:
      return [
        "FailedGetPodsMetric",
        `unable to get metric ${name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`,
        "failed to get pods metric value",
      ];
  }
}
