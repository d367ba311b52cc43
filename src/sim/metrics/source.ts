// The Metrics API (metrics.k8s.io/v1beta1) as metrics-server serves it: PodMetrics for pods whose
// containers all run and have run long enough for a rate (metrics-server needs two scrapes, so a
// fresh pod has none and `kubectl top` says "metrics not available yet"), NodeMetrics summing the
// node's pods plus what the system itself uses. Computed on read, never stored.
import type { MetricsSource } from "../api/hooks.js";
import { stamp } from "../clock.js";
import type { SimContext } from "../controllers/context.js";
import { R } from "../controllers/context.js";
import type { KObject } from "../types.js";
import { containerUsage, nodeUsage, runningRefs } from "./usage.js";

export interface MetricsOptions {
  /** Cluster ms a container must have run before it has metrics. */
  warmupMs?: number;
}

const API_VERSION = "metrics.k8s.io/v1beta1";
/** metrics-server's rate window over its 15 s scrapes: clients only display it. */
const WINDOW = "10.5s";

/** CPU in metrics-server's form: nanocores, in canonical decimal notation ("1234567n", "5m", "2"). */
export function cpuQuantity(milli: number): string {
  const n = Math.round(milli * 1e6);
  if (n <= 0) return "0";
  if (n % 1e9 === 0) return String(n / 1e9);
  if (n % 1e6 === 0) return `${n / 1e6}m`;
  if (n % 1e3 === 0) return `${n / 1e3}u`;
  return `${n}n`;
}

/** Memory working set in canonical binary notation of whole pages ("24964Ki", "100Mi"). */
export function memoryQuantity(bytes: number): string {
  const ki = Math.round(bytes / 4096) * 4;
  if (ki <= 0) return "0";
  if (ki % (1024 * 1024) === 0) return `${ki / (1024 * 1024)}Gi`;
  if (ki % 1024 === 0) return `${ki / 1024}Mi`;
  return `${ki}Ki`;
}

export class SimMetrics implements MetricsSource {
  private readonly warmupMs: number;

  constructor(
    private readonly ctx: SimContext,
    opts: MetricsOptions = {},
  ) {
    this.warmupMs = opts.warmupMs ?? 15_000;
  }

  podMetrics(ns: string | undefined): KObject[] {
    const now = this.ctx.clock.now();
    const out: KObject[] = [];
    for (const pod of this.ctx.registry.list(R("Pod"), ns)) {
      const refs = runningRefs(pod, this.ctx.clock);
      if (!refs) continue;
      // A container that (re)started within the warm-up has no rate yet, so neither has its pod.
      if (refs.some((r) => now - r.startedAt < this.warmupMs)) continue;
      out.push({
        kind: "PodMetrics",
        apiVersion: API_VERSION,
        metadata: {
          name: pod.metadata.name,
          namespace: pod.metadata.namespace,
          ...(pod.metadata.labels ? { labels: pod.metadata.labels } : {}),
          creationTimestamp: stamp(this.ctx.clock, now),
        },
        timestamp: stamp(this.ctx.clock, now),
        window: WINDOW,
        containers: refs.map((ref) => {
          const u = containerUsage(this.ctx, ref, now);
          return {
            name: ref.container.name,
            usage: { cpu: cpuQuantity(u.cpuMilli), memory: memoryQuantity(u.memoryBytes) },
          };
        }),
      });
    }
    return out;
  }

  nodeMetrics(): KObject[] {
    const now = this.ctx.clock.now();
    return this.ctx.registry
      .list(R("Node"), undefined)
      .filter((n) =>
        (n.status?.conditions ?? []).some(
          (c: { type: string; status: string }) => c.type === "Ready" && c.status === "True",
        ),
      )
      .map((node) => {
        const u = nodeUsage(this.ctx, node, now);
        return {
          kind: "NodeMetrics",
          apiVersion: API_VERSION,
          metadata: {
            name: node.metadata.name,
            ...(node.metadata.labels ? { labels: node.metadata.labels } : {}),
            creationTimestamp: stamp(this.ctx.clock, now),
          },
          timestamp: stamp(this.ctx.clock, now),
          window: WINDOW,
          usage: { cpu: cpuQuantity(u.cpuMilli), memory: memoryQuantity(u.memoryBytes) },
        };
      });
  }
}
