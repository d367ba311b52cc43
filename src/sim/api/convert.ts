// Conversion between the versions of a resource that share storage, as the API server converts
// through its internal version: HorizontalPodAutoscalers are kept as autoscaling/v2 and read or
// written as v1 too (pkg/apis/autoscaling/v1/conversion.go); events.k8s.io/v1 Events are core/v1
// Events under other field names (pkg/apis/events/v1/conversion.go).
import type { KObject } from "../core/types.js";

interface Conversion {
  /** The apiVersion objects are stored in. */
  storage: string;
  /** From another served version to the stored one. */
  toStorage(o: KObject): KObject;
  /** From the stored version to another served one. */
  fromStorage(o: KObject, apiVersion: string): KObject;
}

type Fields = Record<string, unknown>;

/** Renames fields (from → to) of a flat object, keeping the rest. */
function rename(o: Fields, pairs: [string, string][]): Fields {
  const out: Fields = { ...o };
  for (const [from, to] of pairs) {
    if (!(from in out)) continue;
    out[to] = out[from];
    delete out[from];
  }
  return out;
}

// core/v1 name → events.k8s.io/v1 name
const EVENT_FIELDS: [string, string][] = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
  ["reportingComponent", "reportingController"],
];

const events: Conversion = {
  storage: "v1",
  toStorage: (o) => ({
    ...(rename(
      o,
      EVENT_FIELDS.map(([a, b]) => [b, a]),
    ) as KObject),
    apiVersion: "v1",
  }),
  fromStorage: (o, apiVersion) => ({ ...(rename(o, EVENT_FIELDS) as KObject), apiVersion }),
};

interface MetricSpec {
  type?: string;
  resource?: { name?: string; target?: { type?: string; averageUtilization?: number } };
}
interface MetricStatus {
  type?: string;
  resource?: { name?: string; current?: { averageUtilization?: number } };
}

const cpuSpec = (m: MetricSpec) =>
  m.type === "Resource" && m.resource?.name === "cpu" && m.resource.target?.type === "Utilization";

// What autoscaling/v1 cannot hold travels in annotations (pkg/apis/autoscaling/v1/conversion.go)
const OTHER_METRICS = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior";

type V2Target = { type?: string; averageUtilization?: number; averageValue?: string; value?: string };
type V2Current = { averageUtilization?: number; averageValue?: string; value?: string };

/** A v2 Resource metric in v1's (v2beta1's) shape for the annotations; other kinds as they are. */
function metricToV1(m: Fields): Fields {
  const r = m.resource as { name?: string; target?: V2Target } | undefined;
  if (m.type !== "Resource" || !r) return m;
  const t = r.target ?? {};
  return {
    type: "Resource",
    resource: {
      name: r.name,
      ...(t.averageUtilization !== undefined ? { targetAverageUtilization: t.averageUtilization } : {}),
      ...(t.averageValue !== undefined ? { targetAverageValue: t.averageValue } : {}),
    },
  };
}
function metricFromV1(m: Fields): Fields {
  const r = m.resource as { name?: string; targetAverageUtilization?: number; targetAverageValue?: string };
  if (m.type !== "Resource" || !r) return m;
  const target: V2Target =
    r.targetAverageUtilization !== undefined
      ? { type: "Utilization", averageUtilization: r.targetAverageUtilization }
      : { type: "AverageValue", averageValue: r.targetAverageValue };
  return { type: "Resource", resource: { name: r.name, target } };
}
function currentToV1(m: Fields): Fields {
  const r = m.resource as { name?: string; current?: V2Current } | undefined;
  if (m.type !== "Resource" || !r) return m;
  const c = r.current ?? {};
  return {
    type: "Resource",
    resource: {
      name: r.name,
      ...(c.averageUtilization !== undefined ? { currentAverageUtilization: c.averageUtilization } : {}),
      currentAverageValue: c.averageValue ?? "0",
    },
  };
}
function currentFromV1(m: Fields): Fields {
  const r = m.resource as { name?: string; currentAverageUtilization?: number; currentAverageValue?: string };
  if (m.type !== "Resource" || !r) return m;
  const current: V2Current = { averageValue: r.currentAverageValue };
  if (r.currentAverageUtilization !== undefined) current.averageUtilization = r.currentAverageUtilization;
  return { type: "Resource", resource: { name: r.name, current } };
}

/** The behavior as the internal type marshals (Go field names: the annotation's known quirk). */
function behaviorToV1(b: Fields): Fields {
  const rules = (r: unknown) => {
    if (!r || typeof r !== "object") return null;
    const x = r as { stabilizationWindowSeconds?: number; selectPolicy?: string; policies?: Fields[] };
    return {
      StabilizationWindowSeconds: x.stabilizationWindowSeconds ?? null,
      SelectPolicy: x.selectPolicy ?? null,
      Policies: (x.policies ?? []).map((p) => ({
        Type: p.type,
        Value: p.value,
        PeriodSeconds: p.periodSeconds,
      })),
    };
  };
  return { ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) };
}
function behaviorFromV1(b: Fields): Fields {
  const rules = (r: unknown) => {
    if (!r || typeof r !== "object") return undefined;
    const x = r as {
      StabilizationWindowSeconds?: number | null;
      SelectPolicy?: string | null;
      Policies?: Fields[];
    };
    return {
      ...(x.StabilizationWindowSeconds != null
        ? { stabilizationWindowSeconds: x.StabilizationWindowSeconds }
        : {}),
      ...(x.SelectPolicy != null ? { selectPolicy: x.SelectPolicy } : {}),
      ...(x.Policies
        ? {
            policies: x.Policies.map((p) => ({
              type: p.Type,
              value: p.Value,
              periodSeconds: p.PeriodSeconds,
            })),
          }
        : {}),
    };
  };
  const out: Fields = {};
  const up = rules(b.ScaleUp);
  const down = rules(b.ScaleDown);
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return out;
}

function parseAnnotation(annotations: Record<string, string>, key: string): unknown {
  const raw = annotations[key];
  delete annotations[key];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

const hpa: Conversion = {
  storage: "autoscaling/v2",
  toStorage(o) {
    const spec = { ...((o.spec ?? {}) as Fields) };
    const status = o.status ? { ...(o.status as Fields) } : undefined;
    const annotations = { ...(o.metadata?.annotations ?? {}) };
    const target = spec.targetCPUUtilizationPercentage;
    delete spec.targetCPUUtilizationPercentage;
    const metrics: Fields[] = [];
    if (typeof target === "number")
      metrics.push({
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } },
      });
    const other = parseAnnotation(annotations, OTHER_METRICS);
    if (Array.isArray(other)) metrics.push(...other.map(metricFromV1));
    if (metrics.length) spec.metrics = metrics;
    const behavior = parseAnnotation(annotations, BEHAVIOR);
    if (behavior && typeof behavior === "object") spec.behavior = behaviorFromV1(behavior as Fields);
    const current = parseAnnotation(annotations, CURRENT_METRICS);
    const conditions = parseAnnotation(annotations, CONDITIONS);
    if (status) {
      const pct = status.currentCPUUtilizationPercentage;
      delete status.currentCPUUtilizationPercentage;
      // the annotation has more than the percentage: it wins
      if (Array.isArray(current)) status.currentMetrics = current.map(currentFromV1);
      else if (typeof pct === "number")
        status.currentMetrics = [
          { type: "Resource", resource: { name: "cpu", current: { averageUtilization: pct } } },
        ];
      if (Array.isArray(conditions)) status.conditions = conditions;
    }
    const metadata = { ...o.metadata };
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    else delete metadata.annotations;
    return { ...o, apiVersion: "autoscaling/v2", metadata, spec, ...(status ? { status } : {}) };
  },
  fromStorage(o, apiVersion) {
    const spec = { ...((o.spec ?? {}) as Fields) };
    const metrics = (spec.metrics ?? []) as MetricSpec[];
    const behavior = spec.behavior as Fields | undefined;
    delete spec.metrics;
    delete spec.behavior;
    const cpu = metrics.find(cpuSpec);
    if (cpu?.resource?.target?.averageUtilization !== undefined)
      spec.targetCPUUtilizationPercentage = cpu.resource.target.averageUtilization;
    const annotations: Record<string, string> = { ...(o.metadata?.annotations ?? {}) };
    const other = metrics.filter((m) => m !== cpu);
    if (other.length) annotations[OTHER_METRICS] = JSON.stringify(other.map((m) => metricToV1(m as Fields)));
    if (behavior) annotations[BEHAVIOR] = JSON.stringify(behaviorToV1(behavior));
    let status: Fields | undefined;
    if (o.status) {
      status = { ...(o.status as Fields) };
      const currentMetrics = (status.currentMetrics ?? []) as MetricStatus[];
      const current = currentMetrics.find((m) => m.type === "Resource" && m.resource?.name === "cpu");
      const conditions = (status.conditions ?? []) as Record<string, unknown>[];
      if (currentMetrics.length)
        annotations[CURRENT_METRICS] = JSON.stringify(currentMetrics.map((m) => currentToV1(m as Fields)));
      if (conditions.length)
        annotations[CONDITIONS] = JSON.stringify(
          conditions.map((c) => ({
            type: c.type,
            status: c.status,
            lastTransitionTime: c.lastTransitionTime,
            reason: c.reason,
            message: c.message,
          })),
        );
      delete status.currentMetrics;
      delete status.conditions;
      if (current?.resource?.current?.averageUtilization !== undefined)
        status.currentCPUUtilizationPercentage = current.resource.current.averageUtilization;
    }
    const metadata = { ...o.metadata };
    if (Object.keys(annotations).length) metadata.annotations = annotations;
    return { ...o, apiVersion, metadata, spec, ...(status ? { status } : {}) };
  },
};

/** Conversions by storage key (core/types.ts KEY). */
const CONVERSIONS: Record<string, Conversion> = {
  "/events": events,
  "autoscaling/horizontalpodautoscalers": hpa,
};

/** The object as kept in storage, from the version it was written in. */
export function toStorage(key: string, o: KObject): KObject {
  const c = CONVERSIONS[key];
  return c && o.apiVersion !== c.storage ? c.toStorage(o) : o;
}

/** The stored object as the version `apiVersion` reads it. */
export function fromStorage(key: string, o: KObject, apiVersion: string): KObject {
  const c = CONVERSIONS[key];
  return c && o.apiVersion !== apiVersion ? c.fromStorage(o, apiVersion) : o;
}
