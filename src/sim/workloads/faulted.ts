// What Chaos Mesh's injections do to the workload, as a decorator over any Behavior: it reads the
// FaultBook (written by src/sim/chaos) and changes only what the injected thing changes.
// - stress: the stressors add to the container's demand (workers x load% of a core; bytes held);
//   the kubelet throttles CPU at the limit (metrics) and OOM-kills above the memory limit.
// - pause image (pod-failure swaps it in): nothing listens, nothing is used, nothing is logged.
// - network: the kubelet's httpGet/tcpSocket/grpc probes cross the pod's delayed or lossy link.
// - io: only an exec probe that touches the faulted path feels the latency.
// - container-kill: the runtime SIGKILLs the instance running at that moment (exit 137).
import { hashString } from "../../util/rng.js";
import type { Behavior, ContainerRef, ProbeReach, Usage } from "../context/behavior.js";
import type { FaultBook, IOFault, NetworkFault } from "../context/faults.js";
import type { Probe } from "../core/objects.js";

/** pause never becomes an application: long enough to never answer, short enough for timers. */
const NEVER_MS = 20 * 24 * 3600 * 1000;
const PAUSE_USAGE: Usage = { cpuMilli: 0, memoryBytes: 300 * 1024 };

const kills = new WeakMap<FaultBook, Map<string, number>>();

/** container-kill: the instance of `container` running at `at` is killed (SIGKILL). */
export function killContainer(faults: FaultBook, podUid: string, container: string, at: number): void {
  const m = kills.get(faults) ?? new Map<string, number>();
  kills.set(faults, m);
  m.set(`${podUid}/${container}`, at);
}

/** The pause image, however it is spelled (registry.k8s.io/pause:3.9, rancher/mirrored-pause, ...). */
export function isPauseImage(image: string | undefined): boolean {
  const name = String(image ?? "")
    .split("@")[0]
    .split("/")
    .pop()!
    .split(":")[0];
  return name === "pause" || name === "mirrored-pause";
}

/** A uniform number in [0, 1) fixed by its inputs: probe outcomes repeat with the same clock. */
function unit(...parts: (string | number)[]): number {
  return hashString(parts.join("|")) / 4294967296;
}

export class FaultedBehavior implements Behavior {
  constructor(
    readonly base: Behavior,
    private readonly faults: FaultBook,
  ) {}

  private uid(ref: ContainerRef) {
    return ref.pod.metadata.uid;
  }

  private applies(f: { containers?: string[] }, ref: ContainerRef) {
    return !f.containers || f.containers.includes(ref.container.name);
  }

  startupMs(ref: ContainerRef): number {
    return isPauseImage(ref.container.image) ? NEVER_MS : this.base.startupMs(ref);
  }

  probeOk(ref: ContainerRef, now: number): boolean {
    if (isPauseImage(ref.container.image) || !this.base.probeOk(ref, now)) return false;
    const uid = this.uid(ref);
    return (
      this.faults.of(uid, "network").every((f) => networkProbeOk(ref, f, now)) &&
      this.faults.of(uid, "io").every((f) => !this.applies(f, ref) || ioProbeOk(ref, f, now))
    );
  }

  probeTimedOut(ref: ContainerRef, now: number): boolean {
    if (isPauseImage(ref.container.image)) return false;
    if (!this.base.probeOk(ref, now)) return this.base.probeTimedOut?.(ref, now) ?? false;
    // the application answers: the network or the disk kept the answer from arriving in time
    // (an io fault of action `fault` fails the command instead)
    const uid = this.uid(ref);
    return (
      this.faults.of(uid, "network").some((f) => !networkProbeOk(ref, f, now)) ||
      this.faults
        .of(uid, "io")
        .some((f) => this.applies(f, ref) && f.action !== "fault" && !ioProbeOk(ref, f, now))
    );
  }

  probeReach(ref: ContainerRef, probe: Probe, now: number): ProbeReach | undefined {
    // pause listens on nothing (listeners.ts skips it); the network's delay is probeOk's
    return this.base.probeReach?.(ref, probe, now);
  }

  usage(ref: ContainerRef, now: number): Usage {
    if (isPauseImage(ref.container.image)) return { ...PAUSE_USAGE };
    const u = { ...this.base.usage(ref, now) };
    for (const s of this.faults.of(this.uid(ref), "stress")) {
      if (!this.applies(s, ref)) continue;
      if (s.cpu) u.cpuMilli += s.cpu.workers * s.cpu.load * 10;
      if (s.memory) u.memoryBytes += s.memory.bytes;
    }
    return u;
  }

  exitCode(ref: ContainerRef, now: number): number | undefined {
    const at = kills.get(this.faults)?.get(`${this.uid(ref)}/${ref.container.name}`);
    if (at !== undefined && ref.startedAt <= at && now >= at) return 137;
    return this.base.exitCode?.(ref, now);
  }

  logLines(ref: ContainerRef, moment: "start" | "ready" | "tick" | "stop", now: number): string[] {
    // pause writes nothing; the stressors and netem run outside the application's stdout
    return isPauseImage(ref.container.image) ? [] : this.base.logLines(ref, moment, now);
  }

  pastLines(ref: ContainerRef, from: number, to: number): { at: number; text: string }[] {
    return isPauseImage(ref.container.image) ? [] : (this.base.pastLines?.(ref, from, to) ?? []);
  }
}

/** The probe the kubelet runs over the network (readiness, else liveness), if any. */
function networkProbe(ref: ContainerRef): Probe | undefined {
  const p = ref.container.readinessProbe ?? ref.container.livenessProbe ?? ref.container.startupProbe;
  return p && !p.exec ? p : undefined; // exec probes run inside the pod, over loopback
}

/**
 * A probe from the kubelet answers after the pod's egress packets cross netem: one for a TCP
 * connect (the SYN-ACK), two for HTTP and gRPC (SYN-ACK, then the response); direction `both`
 * delays the ingress half as well. It fails once that passes timeoutSeconds, and when a packet
 * is lost (its retransmission comes too late).
 */
function networkProbeOk(ref: ContainerRef, f: NetworkFault, now: number): boolean {
  const probe = networkProbe(ref);
  if (!probe || f.targetIPs) return true; // a targeted rule leaves traffic to the node alone
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  const legs = (probe.tcpSocket ? 1 : 2) * (f.direction === "both" ? 2 : 1);
  const key = [ref.pod.metadata.uid!, ref.container.name, now];
  if (f.lossPercent && unit(...key, "loss") * 100 < f.lossPercent) return false;
  if (f.action !== "delay") return true;
  // netem jitter is normal around the latency (Box-Muller from two fixed uniforms)
  const g = Math.sqrt(-2 * Math.log(1 - unit(...key, "j1"))) * Math.cos(2 * Math.PI * unit(...key, "j2"));
  const rtt = legs * Math.max(0, (f.delayMs ?? 0) + (f.jitterMs ?? 0) * g) + 1;
  return rtt < timeoutMs;
}

/** An exec probe that reads or writes under the faulted volume waits like any other process. */
function ioProbeOk(ref: ContainerRef, f: IOFault, now: number): boolean {
  const probe = ref.container.readinessProbe ?? ref.container.livenessProbe;
  const cmd = (probe?.exec?.command ?? []).join(" ");
  if (!cmd.includes(f.volumePath)) return true;
  if (unit(ref.pod.metadata.uid!, ref.container.name, now, "io") * 100 >= f.percent) return true;
  if (f.action === "fault") return false;
  return (f.delayMs ?? 0) < (probe?.timeoutSeconds ?? 1) * 1000;
}
