// What the applications' model tells the kernel's pseudo files (userland/kernel/view.ts): the
// processes of a container (topology/processes.ts), the pod's sockets (topology/sockets.ts), and
// the traffic through its eth0: the requests its service receives and answers, the calls it
// makes to its dependencies, and the kubelet's probes (a fresh TCP connection each period).
import { systemOf } from "../context/catalog.js";
import type { SimContext } from "../context/context.js";
import type { Container, Pod, Probe } from "../core/objects.js";
import type { KernelView, TaskView, TrafficRate } from "../userland/kernel/view.js";
import { isPause } from "../userland/toolbox.js";
import { processTable } from "./topology/processes.js";
import { podSockets } from "./topology/sockets.js";
import { trafficOf } from "./topology/traffic.js";

/** Bytes and packets of one exchange on a kept-alive connection: a request with its ACK, an answer with its ACK. */
const REQUEST = { bytes: 480, packets: 2 };
const ANSWER = { bytes: 1100, packets: 2 };
/** A probe: handshake, request, answer, teardown on a new connection (in and out). */
const PROBE_IN = { bytes: 520, packets: 5 };
const PROBE_OUT = { bytes: 640, packets: 4 };

function probesPerSecond(c: Container): number {
  const probes = [c.readinessProbe, c.livenessProbe].filter((p): p is Probe => !!p && !p.exec);
  return probes.reduce((n, p) => n + 1 / Number(p.periodSeconds ?? 10), 0);
}

function traffic(ctx: SimContext, pod: Pod): TrafficRate {
  const rate: TrafficRate = { rxBytes: 0, rxPackets: 0, txBytes: 0, txPackets: 0 };
  const add = (
    inb: { bytes: number; packets: number },
    out: { bytes: number; packets: number },
    n: number,
  ) => {
    rate.rxBytes += inb.bytes * n;
    rate.rxPackets += inb.packets * n;
    rate.txBytes += out.bytes * n;
    rate.txPackets += out.packets * n;
  };
  for (const c of pod.spec?.containers ?? []) if (!isPause(c)) add(PROBE_IN, PROBE_OUT, probesPerSecond(c));
  const app = pod.metadata.labels?.app;
  const m = app ? ctx.catalog.byApp.get(app) : undefined;
  if (!m) return rate;
  const flows = trafficOf(ctx);
  const st = flows.state(pod.metadata.namespace ?? "").services.get(m.key);
  const rps = flows.podRps(pod, m);
  // what it serves, and what it sends itself (a load generator)
  add(REQUEST, ANSWER, rps);
  const sends = st?.pods.some((p) => p.metadata.uid === pod.metadata.uid)
    ? st.sends / Math.max(1, st.pods.length)
    : 0;
  // the calls it makes: a request out, the answer in
  let calls = sends;
  for (const e of systemOf(m).edges.get(m.key) ?? []) calls += rps * e.perReq;
  add(ANSWER, REQUEST, calls);
  return rate;
}

export function kernelView(ctx: SimContext): KernelView {
  // the traffic model hears of pod and fault changes before the kernel's accounts ask it
  trafficOf(ctx);
  return {
    tasks(pod: Pod, container: Container, restartCount: number): TaskView[] {
      return processTable(ctx, pod, container, restartCount).map((x) => ({
        pid: x.pid,
        ppid: x.ppid,
        argv: x.argv,
        comm: x.comm,
        state: x.state,
        threads: x.threads ? 4 + (x.pid % 20) : 1,
        rssBytes: x.rssBytes,
        vszBytes: x.vszBytes,
        startedAt: x.startedAt,
        cpuSeconds: x.cpuSeconds,
        cgroup: x.cgroup,
        owner: x.kind === "toda" || x.kind.startsWith("stress") ? "chaos-daemon" : "container",
      }));
    },
    sockets: (pod) => podSockets(ctx, pod),
    traffic: (pod) => traffic(ctx, pod),
  };
}
