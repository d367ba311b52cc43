// The HPA's replica calculator for Resource metrics (pkg/controller/podautoscaler/
// replica_calculator.go, metrics/client.go, metrics/utilization.go): the pods' usage as the
// resource metrics API serves it (the PodMetrics behind `kubectl top`), summed per pod in milli
// units; pods grouped into ready, unready (pending, or CPU not yet trustworthy after a start) and
// missing (no metrics); a ratio to the target, a 10% tolerance, and the conservative rebalancing
// of unready and missing pods in the direction of the scale.
import { parseQuantity } from "../../util/quantity.js";
import type { MetricsSource } from "../api/hooks.js";
import { matches, type Requirement } from "../api/selectors.js";
import type { Clock } from "../core/clock.js";
import { parseStamp } from "../core/clock.js";
import type { KObject, Pod } from "../core/objects.js";

/** --horizontal-pod-autoscaler-tolerance. */
export const TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period. */
const CPU_INITIALIZATION_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay. */
const INITIAL_READINESS_DELAY_MS = 30_000;

/** A failure computing a metric: its message is the real controller's error text. */
export class MetricError extends Error {
  readonly code = "HPA_METRIC";
}

interface PodMetric {
  /** Milli-units (millicores, milli-bytes), as Quantity.MilliValue() gives them. */
  value: number;
  timestamp: number;
  windowMs: number;
}

/** Quantity.MilliValue(): scaled to milli-units, rounded up. */
export const milliValue = (q: string | undefined) => Math.ceil(parseQuantity(q) * 1000 - 1e-6);

/** A Go duration as metrics-server writes its window ("15s", "1m0s", "12.5s"). */
function durationMs(s: string | undefined): number {
  let ms = 0;
  for (const [, n, u] of String(s ?? "").matchAll(/([0-9.]+)(h|ms|m|s)/g))
    ms += Number(n) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[u as "h" | "m" | "s" | "ms"];
  return ms;
}

interface MetricsItem extends KObject {
  timestamp?: string;
  window?: string;
  containers?: { name: string; usage?: Record<string, string> }[];
}

/** resourceMetricsClient.GetResourceMetric: the selected pods' summed usage of one resource. */
function resourceMetrics(
  source: MetricsSource | undefined,
  clock: Clock,
  resource: string,
  ns: string,
  selector: Requirement[],
  container: string | undefined,
): Map<string, PodMetric> {
  // without metrics-server the API group is not served: the client's error for a missing resource
  if (!source)
    throw new MetricError(
      `unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)`,
    );
  const items = (source.podMetrics(ns) as MetricsItem[]).filter((m) => matches(selector, m.metadata.labels));
  if (items.length === 0)
    throw new MetricError(
      `unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`,
    );
  const out = new Map<string, PodMetric>();
  for (const m of items) {
    let cs = m.containers ?? [];
    if (container !== undefined) {
      // getContainerMetrics: that container only, and every pod must report it
      cs = cs.filter((c) => c.name === container);
      if (cs.length === 0)
        throw new MetricError(
          `unable to get metrics for resource ${resource}: failed to get container metrics: container ${container} not present in metrics for pod ${ns}/${m.metadata.name}`,
        );
    }
    if (cs.length === 0 || cs.some((c) => c.usage?.[resource] === undefined)) continue;
    out.set(m.metadata.name!, {
      value: cs.reduce((a, c) => a + milliValue(c.usage?.[resource]), 0),
      timestamp: parseStamp(clock, m.timestamp),
      windowMs: durationMs(m.window),
    });
  }
  return out;
}

/** groupPods: which pods count, which wait (unready), which have no metrics yet. */
function groupPods(pods: Pod[], metrics: Map<string, PodMetric>, resource: string, clock: Clock) {
  const now = clock.now();
  let ready = 0;
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata.name!;
    if (pod.metadata.deletionTimestamp || pod.status?.phase === "Failed") {
      ignored.add(name);
      continue;
    }
    if (pod.status?.phase === "Pending") {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === "cpu") {
      const cond = (pod.status?.conditions ?? []).find((c) => c.type === "Ready");
      const start = parseStamp(clock, pod.status?.startTime);
      let isUnready: boolean;
      if (!cond || !Number.isFinite(start)) isUnready = true;
      else {
        const transition = parseStamp(clock, cond.lastTransitionTime);
        if (start + CPU_INITIALIZATION_MS > now)
          // within the initialization period: not ready, or no whole window since it became so
          isUnready = cond.status === "False" || metric.timestamp < transition + metric.windowMs;
        // unready and never been ready since its start
        else isUnready = cond.status === "False" && start + INITIAL_READINESS_DELAY_MS > transition;
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    ready++;
  }
  return { ready, unready, missing, ignored };
}

/**
 * calculatePodRequestsFromContainers: a pod's request is its containers' sum (sidecars included),
 * each one needed; or the one container a ContainerResource metric names.
 */
function podRequests(pods: Pod[], resource: string, container: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let cs = [
      ...(pod.spec?.containers ?? []),
      ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always"),
    ];
    if (container !== undefined) {
      cs = cs.filter((c) => c.name === container);
      if (cs.length === 0)
        throw new MetricError(`container ${container} not found in Pod ${pod.metadata.name}`);
    }
    let sum = 0;
    for (const c of cs) {
      const q = c.resources?.requests?.[resource];
      if (q === undefined)
        throw new MetricError(
          `missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name}`,
        );
      sum += milliValue(q);
    }
    out.set(pod.metadata.name!, sum);
  }
  return out;
}

/** GetResourceUtilizationRatio: usage over requests as a whole percentage, and the raw average. */
function utilizationRatio(metrics: Map<string, PodMetric>, requests: Map<string, number>, target: number) {
  let used = 0;
  let requested = 0;
  let n = 0;
  for (const [pod, m] of metrics) {
    const r = requests.get(pod);
    if (r === undefined) continue;
    used += m.value;
    requested += r;
    n++;
  }
  if (requested === 0) throw new MetricError("no metrics returned matched known pods");
  const utilization = Math.trunc((used * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(used / n) };
}

/** GetMetricUsageRatio: the plain average over the pods against an average-value target. */
function usageRatio(metrics: Map<string, PodMetric>, target: number) {
  let used = 0;
  for (const m of metrics.values()) used += m.value;
  const usage = Math.trunc(used / metrics.size);
  return { ratio: usage / target, usage };
}

const within = (ratio: number) => Math.abs(1 - ratio) <= TOLERANCE;

export interface ResourceInput {
  source: MetricsSource | undefined;
  clock: Clock;
  resource: string;
  namespace: string;
  selector: Requirement[];
  pods: Pod[];
  currentReplicas: number;
  /** A ContainerResource metric's container. */
  container?: string;
}

export interface Proposal {
  replicas: number;
  /** Percentage of request (Utilization targets only). */
  utilization?: number;
  /** Average per pod, in milli-units. */
  raw: number;
}

/** The replica count a Resource metric asks for (GetResourceReplicas / GetRawResourceReplicas). */
export function resourceReplicas(
  input: ResourceInput,
  target: { utilization?: number; averageMilli?: number },
): Proposal {
  const { resource, pods, currentReplicas } = input;
  const metrics = resourceMetrics(
    input.source,
    input.clock,
    resource,
    input.namespace,
    input.selector,
    input.container,
  );
  if (pods.length === 0)
    throw new MetricError("no pods returned by selector while calculating replica count");
  const { ready, unready, missing, ignored } = groupPods(pods, metrics, resource, input.clock);
  for (const p of [...ignored, ...unready]) metrics.delete(p);
  if (metrics.size === 0)
    throw new MetricError("did not receive metrics for targeted pods (pods might be unready)");

  // the ratio and what a pod counts as when its metric is missing or held back
  let ratioOf: (m: Map<string, PodMetric>) => number;
  let fallback: (pod: string) => number;
  let utilization: number | undefined;
  let raw: number;
  if (target.averageMilli !== undefined) {
    const average = target.averageMilli;
    ({ usage: raw } = usageRatio(metrics, average));
    ratioOf = (m) => usageRatio(m, average).ratio;
    fallback = () => average;
  } else {
    const pct = target.utilization!;
    const requests = podRequests(pods, resource, input.container);
    const first = utilizationRatio(metrics, requests, pct);
    utilization = first.utilization;
    raw = first.raw;
    ratioOf = (m) => utilizationRatio(m, requests, pct).ratio;
    // a missing pod on a scale-down uses all of its request (or the target when that is higher)
    fallback = (pod) => Math.trunc(((requests.get(pod) ?? 0) * Math.max(100, pct)) / 100);
  }
  const ratio = ratioOf(metrics);
  const proposal = (replicas: number): Proposal => ({ replicas, utilization, raw });

  const upWithUnready = unready.size > 0 && ratio > 1;
  if (!upWithUnready && missing.size === 0) {
    if (within(ratio)) return proposal(currentReplicas);
    return proposal(Math.ceil(ratio * ready));
  }
  if (missing.size > 0) {
    // scale-down: missing pods use what they asked for; scale-up: nothing
    for (const pod of missing)
      if (ratio < 1) metrics.set(pod, { value: fallback(pod), timestamp: 0, windowMs: 0 });
      else if (ratio > 1) metrics.set(pod, { value: 0, timestamp: 0, windowMs: 0 });
  }
  if (upWithUnready) for (const pod of unready) metrics.set(pod, { value: 0, timestamp: 0, windowMs: 0 });
  const next = ratioOf(metrics);
  // no change when it would be too small, or when the rebalanced ratio turns the direction
  if (within(next) || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return proposal(currentReplicas);
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1 && replicas > currentReplicas) || (next > 1 && replicas < currentReplicas))
    return proposal(currentReplicas);
  return proposal(replicas);
}
