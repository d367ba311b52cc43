// tc, in the images that ship it: iproute2's (CentOS 7's iproute 4.11 here) or BusyBox's applet
// (busybox; Alpine's build leaves it out). `tc [-s] qdisc show [dev DEV]` lists the pod's qdiscs
// (userland/kernel/qdisc.ts): noqueue on lo and eth0, or the netem (and prio/sfq) layout Chaos
// Mesh's NetworkChaos installs while it lasts. iproute2 prints each qdisc's options as
// q_netem.c does (4.11: delays as "%.1fs"/"%.1fms"; newer: "%.3g" with the unit) and with -s its
// statistics; BusyBox's tc decodes only prio and cbq options and says "(options for netem)".
// Changing qdiscs needs CAP_NET_ADMIN, which a container does not have.

import { netRates } from "../userland/kernel/netdev.js";
import { type Qdisc, qdiscStats, qdiscsOf } from "../userland/kernel/qdisc.js";
import { kernelOf } from "../userland/kernel/state.js";
import type { CommandRegistry, Proc } from "../userland/process.js";
import { gated, toolImpl } from "../userland/toolbox.js";

const g = (x: number) => String(Number(x.toPrecision(3)));

/** A netem time as the tc of the image prints it. */
function time(ms: number, el7: boolean): string {
  if (el7) {
    if (ms >= 1000) return `${(ms / 1000).toFixed(1)}s`;
    if (ms >= 1) return `${ms.toFixed(1)}ms`;
    return `${Math.round(ms * 1000)}us`;
  }
  if (ms >= 1000) return `${g(ms / 1000)}s`;
  if (ms >= 1) return `${g(ms)}ms`;
  return `${g(ms * 1000)}us`;
}

const pct = (x: number) => `${Number(x.toPrecision(6))}%`;

function options(q: Qdisc, el7: boolean): string {
  switch (q.kind) {
    case "netem": {
      const n = q.netem!;
      let s = `limit ${n.limit}`;
      if (n.delayMs) s += ` delay ${time(n.delayMs, el7)}${n.jitterMs ? `  ${time(n.jitterMs, el7)}` : ""}`;
      if (n.lossPercent) s += ` loss ${pct(n.lossPercent)}`;
      if (n.corruptPercent) s += ` corrupt ${pct(n.corruptPercent)}`;
      return s;
    }
    case "prio":
      return `bands ${q.bands} priomap  1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1`;
    case "sfq":
      return "limit 127p quantum 1514b depth 127 divisor 1024 ";
    default:
      return "";
  }
}

function head(q: Qdisc, withDev: boolean): string {
  const where = q.parent === "root" ? "root refcnt 2 " : `parent ${q.parent} `;
  return `qdisc ${q.kind} ${q.handle.toString(16)}: ${withDev ? `dev ${q.dev} ` : ""}${where}`;
}

function show(p: Proc, busybox: boolean, el7: boolean, stats: boolean, dev?: string): number {
  if (dev !== undefined && dev !== "lo" && dev !== "eth0") {
    p.stderr.write(busybox ? `tc: can't find device '${dev}'\n` : `Cannot find device "${dev}"\n`);
    return 1;
  }
  const kernel = kernelOf(p.ctx);
  const pod = p.pod;
  // what eth0 sends per ms now: the netem in front of it sees the same packets
  const tx = () => {
    const ns = pod.metadata.namespace ?? "";
    const [, , txB, txP] = netRates(p.ctx, kernel.view, ns, pod.metadata.name ?? "", pod.metadata.uid ?? "");
    return [txB, txP];
  };
  for (const q of qdiscsOf(p.ctx, pod).filter((x) => dev === undefined || x.dev === dev)) {
    let line = head(q, dev === undefined);
    if (busybox) line += q.kind === "noqueue" ? "" : `(options for ${q.kind})`;
    else line += options(q, el7);
    p.out(`${line}\n`);
    if (!stats || busybox) continue;
    const [bytes, packets, dropped] = qdiscStats(kernel.meters, p.ctx, pod, q, tx).map(Math.floor);
    p.out(` Sent ${bytes} bytes ${packets} pkt (dropped ${dropped}, overlimits 0 requeues 0) \n`);
    p.out(" backlog 0b 0p requeues 0\n");
  }
  return 0;
}

function tc(args: string[], p: Proc): number {
  const busybox = toolImpl(p, "tc") === "busybox";
  const el7 = toolImpl(p, "tc") === "iproute2-el7";
  const a = [...args];
  let stats = false;
  while (!busybox && a[0]?.startsWith("-")) {
    const o = a.shift()!;
    if (/^-s(tat(istics)?)?$/.test(o)) stats = true;
  }
  const [object, cmd = "show", ...rest] = a;
  if (!object || !["qdisc", "class", "filter"].some((o) => o.startsWith(object))) {
    p.stderr.write(
      busybox
        ? "BusyBox v1.35.0 multi-call binary.\n\nUsage: tc OBJECT CMD [dev STRING]\n"
        : "Usage: tc [ OPTIONS ] OBJECT { COMMAND | help }\n       tc [-force] -batch filename\nwhere  OBJECT := { qdisc | class | filter | chain |\n                    action | monitor | exec }\n",
    );
    return busybox ? 1 : 255;
  }
  if (!["show", "list", "ls"].includes(cmd)) {
    p.stderr.write(`${busybox ? "tc: " : ""}RTNETLINK answers: Operation not permitted\n`);
    return busybox ? 1 : 2;
  }
  const i = rest.indexOf("dev");
  const dev = i >= 0 ? rest[i + 1] : undefined;
  // the pod's qdiscs have no classes a show would list but prio's bands; nothing is filtered
  if (!"qdisc".startsWith(object)) return 0;
  return show(p, busybox, el7, stats, dev);
}

export function registerTc(r: CommandRegistry): void {
  r.register("tc", gated("tc", tc));
}
