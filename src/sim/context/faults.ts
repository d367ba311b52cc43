// What Chaos Mesh has injected into which pods, as the rest of the simulation needs to know it.
// The chaos controllers (src/sim/chaos/) write it when they inject and recover; the workload
// behavior, the kubelet (through the Behavior), the metrics and the exec commands (ping, dd,
// ps, top, wget/curl) read it. One record per pod uid and chaos object, so several experiments
// on one pod add up and each recovers on its own.

export interface StressFault {
  kind: "stress";
  /** CPU stressors: workers each wanting `load`% of a core. */
  cpu?: { workers: number; load: number };
  /** Memory stressors: bytes held (all workers together). */
  memory?: { workers: number; bytes: number };
  /** Containers the stressors run in (Chaos Mesh: the selected containers, default all). */
  containers?: string[];
}

export interface PodFailureFault {
  kind: "pod-failure";
}

export interface NetworkFault {
  kind: "network";
  action: "delay" | "loss" | "duplicate" | "corrupt" | "partition" | "bandwidth";
  /** Egress from the pod ("to"), ingress ("from") or both. */
  direction: "to" | "from" | "both";
  delayMs?: number;
  jitterMs?: number;
  lossPercent?: number;
  /** Target pods' IPs when the experiment names a target; undefined: all traffic. */
  targetIPs?: string[];
}

export interface IOFault {
  kind: "io";
  action: "latency" | "fault" | "attrOverride" | "mistake";
  volumePath: string;
  /** Glob of affected paths (e.g. /var/log/mysql/** /*). */
  path?: string;
  delayMs?: number;
  percent: number;
  errno?: number;
  containers?: string[];
}

/**
 * HTTPChaos: chaos-daemon's tproxy takes over new TCP connections to `port` in the pod's network
 * namespace and applies the actions to the HTTP/1 requests (or responses) that match.
 */
export interface HttpFault {
  kind: "http";
  target: "Request" | "Response";
  port: number;
  /** Wildcard pattern on the URL path (`*`, `?`), as the tproxy's WildMatch. */
  path?: string;
  method?: string;
  /** Response target: only responses with this status. */
  code?: number;
  abort?: boolean;
  delayMs?: number;
  /** replace.code: the status the response is given instead. */
  replaceCode?: number;
}

export type Fault = StressFault | PodFailureFault | NetworkFault | IOFault | HttpFault;

export interface FaultRecord {
  /** The chaos object that injected it ("<kind>/<ns>/<name>"). */
  source: string;
  podUid: string;
  fault: Fault;
  /** Cluster ms. */
  since: number;
}

export class FaultBook {
  private readonly byPod = new Map<string, FaultRecord[]>();
  private readonly listeners = new Set<(podUid: string) => void>();

  add(rec: FaultRecord): void {
    const list = (this.byPod.get(rec.podUid) ?? []).filter(
      (r) => !(r.source === rec.source && r.fault.kind === rec.fault.kind),
    );
    list.push(rec);
    this.byPod.set(rec.podUid, list);
    this.emit(rec.podUid);
  }

  /** Recover every fault a chaos object injected (into one pod, or all pods). */
  remove(source: string, podUid?: string): void {
    for (const [uid, list] of this.byPod) {
      if (podUid && uid !== podUid) continue;
      const keep = list.filter((r) => r.source !== source);
      if (keep.length === list.length) continue;
      if (keep.length) this.byPod.set(uid, keep);
      else this.byPod.delete(uid);
      this.emit(uid);
    }
  }

  forPod(podUid: string | undefined): FaultRecord[] {
    return podUid ? (this.byPod.get(podUid) ?? []) : [];
  }

  of<K extends Fault["kind"]>(podUid: string | undefined, kind: K): Extract<Fault, { kind: K }>[] {
    return this.forPod(podUid)
      .map((r) => r.fault)
      .filter((f): f is Extract<Fault, { kind: K }> => f.kind === kind);
  }

  /** Told when a pod's faults change (the kubelet and controllers re-check it). */
  onChange(fn: (podUid: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(uid: string) {
    for (const fn of this.listeners) fn(uid);
  }
}
