// HorizontalPodAutoscalers and the metrics.k8s.io tables (metrics-server's own printer).

import type {
  HorizontalPodAutoscaler,
  MetricSpec,
  MetricStatus,
  MetricTarget,
  ResourceMetric,
} from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { int, str } from "./format.js";
import { AGE_COL, type ColumnDefinition, col, NAME_COL, type Printer } from "./types.js";

/** An HPA as stored: v2's fields, or autoscaling/v1's single CPU target. */
interface Hpa extends HorizontalPodAutoscaler {
  spec: HorizontalPodAutoscaler["spec"] & { targetCPUUtilizationPercentage?: number };
  status?: NonNullable<HorizontalPodAutoscaler["status"]> & { currentCPUUtilizationPercentage?: number };
}

/** autoscaling/v1 carries one CPU target; the internal type (and v2) see it as a Resource metric. */
function hpaMetrics(o: Hpa): { specs: MetricSpec[]; statuses: MetricStatus[] } {
  if (Array.isArray(o.spec?.metrics))
    return { specs: o.spec.metrics, statuses: o.status?.currentMetrics ?? [] };
  // Stored as v2, a v1 HPA without a target is defaulted to 80% CPU.
  const target = o.spec?.targetCPUUtilizationPercentage ?? 80;
  const current = o.status?.currentCPUUtilizationPercentage;
  return {
    specs: [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: target } },
      },
    ],
    statuses:
      current === undefined
        ? []
        : [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: current } } }],
  };
}

const pct = (v: unknown) => (typeof v === "number" ? `${v}%` : undefined);

/** formatHPAMetrics: "cpu: 45%/80%", at most two metrics then "+ N more...". */
export function formatHPAMetrics(specs: MetricSpec[], statuses: MetricStatus[]): string {
  if (specs.length === 0) return "<none>";
  const list = specs.map((spec, i) => {
    const st = statuses[i];
    switch (spec.type) {
      case "External":
      case "Object": {
        const key = spec.type === "External" ? "external" : "object";
        const t: Partial<MetricTarget> = spec[key]?.target ?? {};
        if (t.averageValue !== undefined) {
          return `${st?.[key]?.current?.averageValue ?? "<unknown>"}/${t.averageValue} (avg)`;
        }
        return `${st?.[key] ? str(st[key].current?.value) : "<unknown>"}/${str(t.value)}`;
      }
      case "Pods":
        return `${st?.pods ? str(st.pods.current?.averageValue) : "<unknown>"}/${str(spec.pods?.target?.averageValue)}`;
      case "Resource":
      case "ContainerResource": {
        const key = spec.type === "Resource" ? "resource" : "containerResource";
        const m: Partial<ResourceMetric> = spec[key] ?? {};
        const cur = st?.[key];
        if (m.target?.averageValue !== undefined) {
          return `${m.name}: ${cur ? str(cur.current?.averageValue) : "<unknown>"}/${m.target.averageValue}`;
        }
        return `${m.name}: ${pct(cur?.current?.averageUtilization) ?? "<unknown>"}/${pct(m.target?.averageUtilization) ?? "<auto>"}`;
      }
    }
    return "<unknown type>";
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(", ")} + ${list.length - max} more...`;
  return list.join(", ");
}

export const hpaPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Reference", "string", "scaleTargetRef points to the target resource to scale."),
    col(
      "Targets",
      "string",
      "metrics contains the specifications for which to use to calculate the desired replica count.",
    ),
    col(
      "MinPods",
      "string",
      "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.",
    ),
    col(
      "MaxPods",
      "string",
      "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
    ),
    col(
      "Replicas",
      "string",
      "currentReplicas is current number of replicas of pods managed by this autoscaler.",
    ),
    AGE_COL,
  ],
  cells(obj, { now }) {
    const o = obj as Hpa;
    const ref = o.spec?.scaleTargetRef;
    const { specs, statuses } = hpaMetrics(o);
    return [
      o.metadata.name ?? "",
      `${str(ref?.kind)}/${str(ref?.name)}`,
      formatHPAMetrics(specs, statuses),
      typeof o.spec?.minReplicas === "number" ? String(o.spec.minReplicas) : "<unset>",
      int(o.spec?.maxReplicas),
      int(o.status?.currentReplicas),
      since(o.metadata.creationTimestamp, now),
    ];
  },
};

/** A metrics.k8s.io PodMetrics (per-container usage) or NodeMetrics (usage). */
interface Metrics extends KObject {
  usage?: Record<string, string>;
  containers?: { name?: string; usage?: Record<string, string> }[];
  window?: string;
}

/** Usage totals of a PodMetrics (summed over containers) or a NodeMetrics. */
function usageOf(obj: KObject): Record<string, string> {
  const o = obj as Metrics;
  if (o.usage) return o.usage;
  const sums = new Map<string, string[]>();
  for (const c of o.containers ?? []) {
    for (const [k, v] of Object.entries(c.usage ?? {})) {
      sums.set(k, [...(sums.get(k) ?? []), v]);
    }
  }
  return Object.fromEntries([...sums].map(([k, vs]) => [k, addQuantities(vs)]));
}

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** Sums quantities, writing the result in the finest suffix used (Go keeps exact scaled values). */
export function addQuantities(qs: string[]): string {
  if (qs.length === 1) return qs[0];
  let best = "";
  let total = 0;
  for (const q of qs) {
    const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q);
    const suffix = m && m[2] in SUFFIX ? m[2] : "";
    total += (m ? Number(m[1]) : 0) * SUFFIX[suffix];
    if (best === "" || SUFFIX[suffix] < SUFFIX[best]) best = suffix;
  }
  return `${Math.round(total / SUFFIX[best])}${best}`;
}

function metricsColumns(objects: KObject[]): ColumnDefinition[] {
  const names = objects.length > 0 ? Object.keys(usageOf(objects[0])).sort() : ["cpu", "memory"];
  return [
    { ...NAME_COL, description: "Name of the resource" },
    ...names.map((n) => ({ name: n, type: "string", format: "quantity", description: "", priority: 0 })),
    { name: "Window", type: "string", format: "duration", description: "", priority: 0 },
  ];
}

export const metricsPrinter: Printer = {
  columns: metricsColumns,
  cells(o) {
    const usage = usageOf(o);
    const names = Object.keys(usage).sort();
    return [o.metadata.name ?? "", ...names.map((n) => usage[n]), str(o.window)];
  },
};
