// The Metrics API (metrics.k8s.io/v1beta1) as metrics-server serves it: PodMetrics for pods whose
// containers all run and have two scrape points (scraper.ts: a fresh pod has none and `kubectl
// top` says "metrics not available yet"), the CPU averaged over the window between them (15 s,
// --metric-resolution) and the memory of the last, with that `window` and `timestamp`;
// NodeMetrics summing the node's containers over the same window plus what the system uses.

import { bytes, milliCpu } from "../../util/quantity.js";
import type { MetricsSource } from "../api/hooks.js";
import { R } from "../api/resources.js";
import type { SimContext } from "../context/context.js";
import { stamp } from "../core/clock.js";
import type { Condition, Node, Pod } from "../core/objects.js";
import type { KObject } from "../core/types.js";
import { goDuration, Scraper } from "./scraper.js";
import { runningRefs, SYSTEM_OVERHEAD } from "./usage.js";

export interface MetricsOptions {
  /** metrics-server's --metric-resolution in cluster ms (15 s by default). */
  resolutionMs?: number;
}

const API_VERSION = "metrics.k8s.io/v1beta1";

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
  private readonly scraper: Scraper;

  constructor(
    private readonly ctx: SimContext,
    opts: MetricsOptions = {},
  ) {
    this.scraper = new Scraper(ctx, opts.resolutionMs ?? 15_000);
  }

  stop(): void {
    this.scraper.stop();
  }

  /** A pod's containers as the last scrapes saw them, or undefined unless every one has a rate. */
  private podUsage(pod: Pod) {
    const refs = runningRefs(pod, this.ctx.clock);
    if (!refs) return undefined;
    const rows = refs.map((ref) => ({
      name: ref.container.name,
      u: this.scraper.usage(pod.metadata.uid, ref.container.name, ref.restartCount),
    }));
    if (rows.some((r) => !r.u)) return undefined;
    return rows as { name: string; u: NonNullable<(typeof rows)[number]["u"]> }[];
  }

  podMetrics(ns: string | undefined): KObject[] {
    const out: KObject[] = [];
    for (const pod of this.ctx.registry.list(R("Pod"), ns) as Pod[]) {
      const rows = this.podUsage(pod);
      if (!rows) continue;
      // the earliest point of the pod's containers, as metrics-server's GetMetrics takes it
      const first = rows.reduce((a, b) => (b.u.timestamp < a.u.timestamp ? b : a));
      out.push({
        kind: "PodMetrics",
        apiVersion: API_VERSION,
        metadata: {
          name: pod.metadata.name,
          namespace: pod.metadata.namespace,
          ...(pod.metadata.labels ? { labels: pod.metadata.labels } : {}),
          creationTimestamp: stamp(this.ctx.clock, this.ctx.clock.now()),
        },
        timestamp: stamp(this.ctx.clock, first.u.timestamp),
        window: goDuration(first.u.windowMs),
        containers: rows.map((r) => ({
          name: r.name,
          usage: { cpu: cpuQuantity(r.u.cpuMilli), memory: memoryQuantity(r.u.memoryBytes) },
        })),
      });
    }
    return out;
  }

  nodeMetrics(): KObject[] {
    const now = this.ctx.clock.now();
    return (this.ctx.registry.list(R("Node"), undefined) as Node[])
      .filter((n) =>
        (n.status?.conditions ?? []).some((c: Condition) => c.type === "Ready" && c.status === "True"),
      )
      .map((node) => {
        let cpu = SYSTEM_OVERHEAD.cpuMilli;
        let mem = SYSTEM_OVERHEAD.memoryBytes;
        let ts = now;
        let windowMs = this.scraper.resolutionMs;
        for (const s of this.scraper.samples.values()) {
          if (s.node !== node.metadata.name || !s.prev) continue;
          cpu += (s.last.cum - s.prev.cum) / (s.last.ts - s.prev.ts);
          mem += s.last.memoryBytes;
          ts = s.last.ts;
          windowMs = s.last.ts - s.prev.ts;
        }
        const capCpu = milliCpu(node.status?.capacity?.cpu) || Number.POSITIVE_INFINITY;
        const capMem = bytes(node.status?.capacity?.memory) || Number.POSITIVE_INFINITY;
        return {
          kind: "NodeMetrics",
          apiVersion: API_VERSION,
          metadata: {
            name: node.metadata.name,
            ...(node.metadata.labels ? { labels: node.metadata.labels } : {}),
            creationTimestamp: stamp(this.ctx.clock, now),
          },
          timestamp: stamp(this.ctx.clock, ts),
          window: goDuration(windowMs),
          usage: { cpu: cpuQuantity(Math.min(cpu, capCpu)), memory: memoryQuantity(Math.min(mem, capMem)) },
        };
      });
  }
}
