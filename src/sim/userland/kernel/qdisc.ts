// The queueing disciplines of a pod's network namespace, as `tc qdisc show` lists them. A veth
// and lo have no queue (noqueue) until Chaos Mesh's NetworkChaos installs netem on eth0
// (chaos-mesh pkg/chaosdaemon/tc_server.go, SetTcs): the rules without a target ("global") chain
// from the root, `handle 1:` then `parent 1: handle 2:`, ...; the rules with a target go under a
// prio qdisc of 3 + n bands whose first three bands get sfq, each rule a netem on band 4, 5, ...
// (iptables CLASSIFY sends the targets' packets there). Netem arguments are Chaos Mesh's
// (convertNetemToArgs): `delay <latency> [<jitter>]`, `loss <pct>`, `corrupt <pct>`; the limit
// is netem's default, 1000 packets. Partition is iptables, not tc: it adds no qdisc.

import type { SimContext } from "../../context/context.js";
import type { FaultRecord, NetworkFault } from "../../context/faults.js";
import type { Pod } from "../../core/objects.js";
import type { Meters } from "./meters.js";

export interface Netem {
  limit: number;
  delayMs?: number;
  jitterMs?: number;
  lossPercent?: number;
  corruptPercent?: number;
  duplicate?: boolean;
}

export interface Qdisc {
  kind: "noqueue" | "netem" | "prio" | "sfq" | "tbf";
  dev: "lo" | "eth0";
  /** Major handle number (0 for noqueue). */
  handle: number;
  /** "root" or the parent class ("1:4"). */
  parent: string;
  netem?: Netem;
  bands?: number;
  /** The record that installed it, for its statistics. */
  record?: FaultRecord;
}

const TC_ACTIONS = new Set<NetworkFault["action"]>(["delay", "loss", "duplicate", "corrupt", "bandwidth"]);

function netemOf(f: NetworkFault): Netem {
  const n: Netem = { limit: 1000 };
  if (f.action === "delay") {
    n.delayMs = f.delayMs;
    if (f.jitterMs) n.jitterMs = f.jitterMs;
  }
  if (f.action === "loss") n.lossPercent = f.lossPercent;
  if (f.action === "corrupt") n.corruptPercent = f.lossPercent;
  if (f.action === "duplicate") n.duplicate = true;
  return n;
}

/** The pod's qdiscs now, lo first, in the order `tc qdisc show` lists them. */
export function qdiscsOf(ctx: SimContext, pod: Pod): Qdisc[] {
  const out: Qdisc[] = [{ kind: "noqueue", dev: "lo", handle: 0, parent: "root" }];
  const rules = ctx.faults
    .forPod(pod.metadata.uid)
    .filter((r): r is FaultRecord & { fault: NetworkFault } => r.fault.kind === "network")
    .filter((r) => TC_ACTIONS.has(r.fault.action));
  if (!rules.length) {
    out.push({ kind: "noqueue", dev: "eth0", handle: 0, parent: "root" });
    return out;
  }
  const global = rules.filter((r) => !r.fault.targetIPs);
  const filtered = rules.filter((r) => r.fault.targetIPs);
  const kindOf = (r: FaultRecord & { fault: NetworkFault }) =>
    r.fault.action === "bandwidth" ? "tbf" : "netem";
  for (const [i, r] of global.entries())
    out.push({
      kind: kindOf(r),
      dev: "eth0",
      handle: i + 1,
      parent: i === 0 ? "root" : `${i}:`,
      netem: kindOf(r) === "netem" ? netemOf(r.fault) : undefined,
      record: r,
    });
  if (filtered.length) {
    const g = global.length;
    const prio = g + 1;
    out.push({
      kind: "prio",
      dev: "eth0",
      handle: prio,
      parent: g ? `${g}:` : "root",
      bands: 3 + filtered.length,
    });
    for (let band = 1; band <= 3; band++)
      out.push({ kind: "sfq", dev: "eth0", handle: prio + band, parent: `${prio}:${band}` });
    for (const [i, r] of filtered.entries())
      out.push({
        kind: kindOf(r),
        dev: "eth0",
        handle: prio + 4 + i,
        parent: `${prio}:${i + 4}`,
        netem: kindOf(r) === "netem" ? netemOf(r.fault) : undefined,
        record: r,
      });
  }
  // tc lists a device's qdiscs root first, then by handle
  return out;
}

/** What a qdisc sent and dropped since it was installed: [bytes, packets, dropped packets]. */
export function qdiscStats(
  meters: Meters,
  ctx: SimContext,
  pod: Pod,
  q: Qdisc,
  txRate: () => number[],
): number[] {
  const r = q.record;
  if (!r) return [0, 0, 0];
  // netem drops for `loss`; a corrupted packet leaves all the same (the receiver drops it)
  const loss = (q.netem?.lossPercent ?? 0) / 100;
  const key = `${pod.metadata.namespace}/${pod.metadata.uid}/qdisc/${r.source}/${q.handle}`;
  const [bytes, packets, dropped] = meters.read(key, ctx.clock.now(), r.since, () => {
    const [txB, txP] = txRate();
    // netem drops `loss` of what is offered; the rest is sent
    const offered = loss < 1 ? txP / (1 - loss) : txP;
    return [txB, txP, offered * loss];
  });
  return [bytes, packets, dropped];
}
