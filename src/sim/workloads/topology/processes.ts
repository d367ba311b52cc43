// The processes of a container as ps, top, kill and /proc see them: PID 1 (the pod's command or
// the image's), the stress-ng processes Chaos Mesh's StressChaos runs in the container's PID
// namespace (a master and its workers per experiment; chaos-daemon attaches them to the
// container's cgroup), toda while an IOChaos lasts (chaos-daemon starts it in the container's
// mount and PID namespaces but leaves it in its own cgroup: pkg/chaosdaemon/iochaos_server.go),
// and the commands exec started that still run (userland/pids.ts). CPU comes from the Behavior
// (with stressors, throttled at the limit and shared in proportion to demand).
//
// Killing is remembered here: PID 1 ending on a signal it handles makes the Behavior report the
// exit (the kubelet then restarts the container as after any exit); a killed stress-ng process
// disappears from ps/top. The stress record itself stays until Chaos Mesh recovers it, so the
// metrics keep counting it (the fault book belongs to the chaos controllers): approximate.

import { milliCpu } from "../../../util/quantity.js";
import { hashString } from "../../../util/rng.js";
import type { SimContext } from "../../context/context.js";
import type { Container } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { containerRef } from "../../metrics/usage.js";
import { instanceKey, pidSpace } from "../../userland/pids.js";
import { commandLine } from "../../userland/toolbox.js";
import { stressOf } from "./impairments.js";

export { instanceKey };

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** Full command line, as ps prints it. */
  args: string;
  /** The command line's words (/proc/<pid>/cmdline). */
  argv: string[];
  /** Process name (comm). */
  comm: string;
  state: "S" | "R";
  /** Whether it runs several threads (ps STAT "l"). */
  threads: boolean;
  cpuMilli: number;
  rssBytes: number;
  vszBytes: number;
  startedAt: number;
  /** CPU seconds used so far. */
  cpuSeconds: number;
  kind: "main" | "stress-master" | "stress-worker" | "toda" | "exec";
  source?: string;
  /** Its cgroup as the container's cgroup namespace shows it ("/": the container's own). */
  cgroup: string;
}

class ProcessBook {
  /** instance key -> exit code of PID 1 and when it exited. */
  readonly exits = new Map<string, { code: number; at: number }>();
  /** `${uid}/${container}/${source}` -> killed stress pids. */
  readonly killed = new Map<string, Set<number>>();
}

const books = new WeakMap<object, ProcessBook>();

export function processBook(ctx: SimContext): ProcessBook {
  let b = books.get(ctx.faults);
  if (!b) {
    b = new ProcessBook();
    books.set(ctx.faults, b);
  }
  return b;
}

/**
 * chaos-daemon's cgroup as the container's cgroup namespace shows it. The daemon runs in a
 * BestEffort pod (the chart sets no resources), under the systemd driver's slices that k3s uses
 * when it runs as a service; the path climbs out of the container's own cgroup
 * (…/kubepods-<qos>-pod<uid>.slice/cri-containerd-<id>.scope) to kubepods.slice and back down.
 */
function daemonCgroup(pod: KObject): string {
  const qos = String((pod as { status?: { qosClass?: string } }).status?.qosClass ?? "Burstable");
  const up = qos === "Guaranteed" ? "/../.." : "/../../..";
  const h = (s: string) => hashString(s).toString(16).padStart(8, "0");
  const uid = `${h("cd-a")}_${h("cd-b").slice(0, 4)}_${h("cd-c").slice(0, 4)}_${h("cd-d").slice(0, 4)}_${h("cd-e")}${h("cd-f").slice(0, 4)}`;
  const id = Array.from({ length: 8 }, (_, i) => h(`chaos-daemon/${i}`)).join("");
  return `${up}/kubepods-besteffort.slice/kubepods-besteffort-pod${uid}.slice/cri-containerd-${id}.scope`;
}

type Spec = Container;

/** ps shows control characters (a multi-line `python -c` script) as "?". */
const clean = (s: string) => [...s].map((c) => (c.charCodeAt(0) < 32 ? "?" : c)).join("");

/** The container's processes now, by PID. */
export function processTable(ctx: SimContext, pod: KObject, spec: Spec, restartCount: number): ProcInfo[] {
  const now = ctx.clock.now();
  const ref = containerRef(pod, spec.name, ctx.clock) ?? {
    pod,
    container: spec,
    startedAt: now,
    restartCount,
  };
  const demand = ctx.behavior.usage(ref, now);
  const stress = stressOf(ctx.faults, pod, spec.name);
  const limit = milliCpu(spec.resources?.limits?.cpu);
  const share = limit > 0 && demand.cpuMilli > limit ? limit / demand.cpuMilli : 1;
  const up = Math.max(0, now - ref.startedAt) / 1000;
  const argv = commandLine(spec);
  // the image's command line is written as one string; nginx's "master process" title is one
  const imageDefault = !spec.command?.length && !spec.args?.length;
  const comm = argv[0].split(" ")[0].replace(/:$/, "").split("/").pop()!;
  const appCpu = Math.max(0, demand.cpuMilli - stress.cpuMilli) * share;
  const procs: ProcInfo[] = [
    {
      pid: 1,
      ppid: 0,
      args: clean(argv.join(" ")),
      argv: imageDefault && !/^\S+: /.test(argv[0]) ? argv[0].split(" ") : argv,
      comm: comm.slice(0, 15),
      state: "S",
      threads: !["sh", "sleep", "pause", "tail"].includes(comm),
      cpuMilli: appCpu,
      rssBytes: Math.max(256 * 1024, demand.memoryBytes - stress.memoryBytes),
      vszBytes: Math.max(1_400_000, (demand.memoryBytes - stress.memoryBytes) * 3),
      startedAt: ref.startedAt,
      cpuSeconds: (appCpu / 1000) * up * 0.9,
      kind: "main",
      cgroup: "/",
    },
  ];
  const book = processBook(ctx);
  for (const r of stress.records) {
    if (r.fault.kind !== "stress") continue;
    const f = r.fault;
    const killed = book.killed.get(`${pod.metadata.uid}/${spec.name}/${r.source}`) ?? new Set<number>();
    const master = 40 + (hashString(`${r.source}/${pod.metadata.uid}`) % 900);
    if (killed.has(master)) continue;
    const opts = [
      ...(f.cpu ? [`--cpu ${f.cpu.workers} --cpu-load ${f.cpu.load}`] : []),
      ...(f.memory
        ? [`--vm ${f.memory.workers} --vm-bytes ${Math.round(f.memory.bytes / 1048576)}M --vm-keep`]
        : []),
    ];
    const since = Math.max(r.since, ref.startedAt);
    const age = Math.max(0, now - since) / 1000;
    const base = {
      ppid: 0,
      state: "S" as const,
      threads: false,
      startedAt: since,
      source: r.source,
      cgroup: "/",
    };
    procs.push({
      ...base,
      pid: master,
      args: `stress-ng ${opts.join(" ")}`,
      argv: ["stress-ng", ...opts.join(" ").split(" ")],
      comm: "stress-ng",
      cpuMilli: 0,
      rssBytes: 4_300_000,
      vszBytes: 37_000_000,
      cpuSeconds: 0,
      kind: "stress-master",
    });
    let pid = master;
    const worker = (name: string, cpu: number, rss: number) => {
      pid++;
      if (killed.has(pid)) return;
      procs.push({
        ...base,
        pid,
        ppid: master,
        state: "R",
        args: `stress-ng-${name} [run]`,
        argv: [`stress-ng-${name} [run]`],
        comm: `stress-ng-${name}`,
        cpuMilli: cpu,
        rssBytes: rss,
        vszBytes: rss + 37_000_000,
        cpuSeconds: (cpu / 1000) * age,
        kind: "stress-worker",
      });
    };
    if (f.cpu) for (let i = 0; i < f.cpu.workers; i++) worker("cpu", f.cpu.load * 10 * share, 2_100_000);
    if (f.memory)
      for (let i = 0; i < f.memory.workers; i++) worker("vm", 5 * share, f.memory.bytes / f.memory.workers);
  }
  for (const r of ctx.faults.forPod(pod.metadata.uid)) {
    const f = r.fault;
    if (f.kind !== "io" || (f.containers && !f.containers.includes(spec.name))) continue;
    const since = Math.max(r.since, ref.startedAt);
    const todaArgv = ["/usr/local/bin/toda", "--path", f.volumePath, "--verbose", "info"];
    procs.push({
      pid: 40 + (hashString(`${r.source}/${pod.metadata.uid}/toda`) % 900),
      ppid: 0,
      args: todaArgv.join(" "),
      argv: todaArgv,
      comm: "toda",
      state: "S",
      threads: true,
      cpuMilli: 2,
      rssBytes: 11_800_000,
      vszBytes: 1_160_000_000,
      startedAt: since,
      cpuSeconds: (Math.max(0, now - since) / 1000) * 0.002,
      kind: "toda",
      source: r.source,
      cgroup: daemonCgroup(pod),
    });
  }
  // what exec started: the one with no running child is on the CPU, the others wait for it
  const live = pidSpace(ctx, pod, spec.name, restartCount).live();
  for (const t of live) {
    const parent = live.some((c) => c.ppid === t.pid);
    procs.push({
      pid: t.pid,
      ppid: t.ppid,
      args: clean(t.argv.join(" ")),
      argv: t.argv,
      comm: (t.argv[0] ?? "").split("/").pop()!.slice(0, 15),
      state: parent ? "S" : "R",
      threads: false,
      cpuMilli: 0,
      rssBytes: 1_600_000,
      vszBytes: 7_000_000,
      startedAt: t.startedAt,
      cpuSeconds: 0,
      kind: "exec",
      cgroup: "/",
    });
  }
  // /proc lists processes by PID
  return procs.sort((a, b) => a.pid - b.pid);
}

/** Remember that processes of a stress experiment were killed. */
export function killStress(ctx: SimContext, pod: KObject, container: string, p: ProcInfo): void {
  const k = `${pod.metadata.uid}/${container}/${p.source}`;
  const set = processBook(ctx).killed.get(k) ?? new Set<number>();
  set.add(p.pid);
  processBook(ctx).killed.set(k, set);
}

/** PID 1 of this instance exits now with `code`. */
export function exitMain(
  ctx: SimContext,
  pod: KObject,
  container: string,
  restartCount: number,
  code: number,
): void {
  processBook(ctx).exits.set(instanceKey(pod, container, restartCount), { code, at: ctx.clock.now() });
}
