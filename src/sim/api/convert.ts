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

const hpa: Conversion = {
  storage: "autoscaling/v2",
  toStorage(o) {
    const spec = { ...((o.spec ?? {}) as Fields) };
    const status = o.status ? { ...(o.status as Fields) } : undefined;
    const target = spec.targetCPUUtilizationPercentage;
    delete spec.targetCPUUtilizationPercentage;
    if (typeof target === "number")
      spec.metrics = [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } },
        },
      ];
    if (status) {
      const current = status.currentCPUUtilizationPercentage;
      delete status.currentCPUUtilizationPercentage;
      if (typeof current === "number")
        status.currentMetrics = [
          { type: "Resource", resource: { name: "cpu", current: { averageUtilization: current } } },
        ];
    }
    return { ...o, apiVersion: "autoscaling/v2", spec, ...(status ? { status } : {}) };
  },
  fromStorage(o, apiVersion) {
    const spec = { ...((o.spec ?? {}) as Fields) };
    const metrics = (spec.metrics ?? []) as MetricSpec[];
    delete spec.metrics;
    delete spec.behavior;
    const cpu = metrics.find(cpuSpec);
    if (cpu?.resource?.target?.averageUtilization !== undefined)
      spec.targetCPUUtilizationPercentage = cpu.resource.target.averageUtilization;
    let status: Fields | undefined;
    if (o.status) {
      status = { ...(o.status as Fields) };
      const current = ((status.currentMetrics ?? []) as MetricStatus[]).find(
        (m) => m.type === "Resource" && m.resource?.name === "cpu",
      );
      delete status.currentMetrics;
      delete status.conditions;
      if (current?.resource?.current?.averageUtilization !== undefined)
        status.currentCPUUtilizationPercentage = current.resource.current.averageUtilization;
    }
    return { ...o, apiVersion, spec, ...(status ? { status } : {}) };
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
