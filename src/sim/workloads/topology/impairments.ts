// What the fault book means for packets, files and CPU, as the commands and the traffic model
// need it. Chaos Mesh's NetworkChaos is tc netem in the pod's network namespace: "to" impairs
// the pod's egress, "from" its ingress, "both" either, each limited to the target's IPs when the
// experiment names a target. A packet from A to B crosses A's egress and B's ingress.
import type { SimContext } from "../../context/context.js";
import type { FaultBook, IOFault, NetworkFault } from "../../context/faults.js";
import type { Pod } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";

export interface Impairment {
  delayMs: number;
  jitterMs: number;
  /** Probability in [0, 1] that a packet is dropped. */
  loss: number;
}

export const NONE: Impairment = { delayMs: 0, jitterMs: 0, loss: 0 };

function add(a: Impairment, f: NetworkFault): Impairment {
  const drop =
    f.action === "partition"
      ? 1
      : f.action === "loss" || f.action === "corrupt"
        ? (f.lossPercent ?? 0) / 100
        : 0;
  return {
    delayMs: a.delayMs + (f.action === "delay" ? (f.delayMs ?? 0) : 0),
    jitterMs: a.jitterMs + (f.action === "delay" ? (f.jitterMs ?? 0) : 0),
    loss: 1 - (1 - a.loss) * (1 - Math.min(1, Math.max(0, drop))),
  };
}

function side(
  book: FaultBook,
  pod: KObject | undefined,
  peerIp: string | undefined,
  dirs: string[],
): Impairment {
  let out = NONE;
  for (const f of book.of(pod?.metadata.uid, "network")) {
    if (!dirs.includes(f.direction)) continue;
    if (f.targetIPs && !(peerIp && f.targetIPs.includes(peerIp))) continue;
    out = add(out, f);
  }
  return out;
}

export const egress = (book: FaultBook, pod: KObject | undefined, peerIp?: string) =>
  side(book, pod, peerIp, ["to", "both"]);
export const ingress = (book: FaultBook, pod: KObject | undefined, peerIp?: string) =>
  side(book, pod, peerIp, ["from", "both"]);

/** One way from pod `src` to pod `dst` (either may be outside the cluster's pods). */
export function oneWay(book: FaultBook, src: Pod | undefined, dst: Pod | undefined): Impairment {
  const a = egress(book, src, dst?.status?.podIP);
  const b = ingress(book, dst, src?.status?.podIP);
  return {
    delayMs: a.delayMs + b.delayMs,
    jitterMs: a.jitterMs + b.jitterMs,
    loss: 1 - (1 - a.loss) * (1 - b.loss),
  };
}

/** A delay drawn as netem draws it: delay ± jitter, uniformly. */
export function draw(i: Impairment, rnd: () => number): number {
  return Math.max(0, i.delayMs + (i.jitterMs ? (rnd() * 2 - 1) * i.jitterMs : 0));
}

/** Whether Chaos Mesh swapped the pod's images for pause (pod-failure). */
export function podFailed(ctx: SimContext, pod: KObject): boolean {
  return ctx.faults.of(pod.metadata.uid, "pod-failure").length > 0;
}

/** Stressors running in a container: CPU they want (millicores) and memory they hold. */
export function stressOf(book: FaultBook, pod: KObject, container: string) {
  let cpuMilli = 0;
  let memoryBytes = 0;
  const records = book
    .forPod(pod.metadata.uid)
    .filter(
      (r) => r.fault.kind === "stress" && (!r.fault.containers || r.fault.containers.includes(container)),
    );
  for (const r of records) {
    if (r.fault.kind !== "stress") continue;
    if (r.fault.cpu) cpuMilli += r.fault.cpu.workers * r.fault.cpu.load * 10;
    if (r.fault.memory) memoryBytes += r.fault.memory.bytes;
  }
  return { cpuMilli, memoryBytes, records };
}

/** Chaos Mesh's path globs: `**` any number of directories, `*` and `?` within one. */
export function globMatch(glob: string, path: string): boolean {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`).test(path);
}

/** IOChaos faults that cover a file of a container. */
export function ioFaultsAt(book: FaultBook, pod: KObject, container: string, path: string): IOFault[] {
  return book.of(pod.metadata.uid, "io").filter((f) => {
    if (f.containers && !f.containers.includes(container)) return false;
    const vol = f.volumePath.replace(/\/+$/, "");
    if (path !== vol && !path.startsWith(`${vol}/`)) return false;
    return !f.path || globMatch(f.path, path) || path === vol;
  });
}

/** IOChaos faults on a volume a container mounts (what stalls its own disk writes). */
export function ioFaultsOnMounts(
  book: FaultBook,
  pod: KObject,
  spec: { name: string; volumeMounts?: { mountPath: string }[] },
) {
  const mounts = (spec.volumeMounts ?? []).map((m) => m.mountPath.replace(/\/+$/, ""));
  return book
    .of(pod.metadata.uid, "io")
    .filter(
      (f) =>
        (!f.containers || f.containers.includes(spec.name)) &&
        mounts.includes(f.volumePath.replace(/\/+$/, "")),
    );
}
