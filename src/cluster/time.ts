// Cluster time as the runner sees it: every protocol duration is in cluster time, divided by the
// cluster's clock speed when waiting on the wall clock. The embedded cluster reports its speed in
// /version; a real cluster runs at 1.
import type { KubeClient } from "./client.js";

export class ClusterTime {
  constructor(readonly speed: number) {}

  static async of(client: KubeClient): Promise<ClusterTime> {
    const v = await client.version();
    const speed = Number(v.clockSpeed ?? 1);
    return new ClusterTime(Number.isFinite(speed) && speed > 0 ? speed : 1);
  }

  /** Wall milliseconds for a cluster duration. */
  wall(clusterMs: number): number {
    return clusterMs / this.speed;
  }

  sleep(clusterMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, this.wall(clusterMs));
      const onAbort = () => {
        clearTimeout(t);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
