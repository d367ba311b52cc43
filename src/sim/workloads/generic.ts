// The behavior of a container no topology describes: it starts in a couple of seconds (slower
// when its CPU limit is small), passes its probe once started, uses about what it requests, and
// logs that it started. Any manifest a user brings runs with this. A container whose command the
// simulation can run (a shell script, `sleep`, `/bin/false`; busybox's default shell) runs it
// (src/sim/kubelet/command.ts): the process writes the log and decides when and how it exits.
import { bytes, MiB, milliCpu } from "../../util/quantity.js";
import type { Rng } from "../../util/rng.js";
import type { Behavior, ContainerRef, Usage } from "../context/behavior.js";
import type { Pod } from "../core/objects.js";

/**
 * The containers' main processes, as the kubelet's runtime runs them (kubelet/command.ts): given
 * to the behavior by the cluster, so the workloads need not know the kubelet.
 */
export interface MainProcessTable {
  /** Whether the simulation runs this container's command (else it is a generic server). */
  runs(ref: ContainerRef): boolean;
  /** The instance's exit, once it happened (starting the process on first sight). */
  exit(ref: ContainerRef, now: number): { code: number } | undefined;
  /** Start the process if it has not started (`now`: within this call, not after it). */
  ensure(ref: ContainerRef, now?: boolean): unknown;
  /** The container stopped: end the process. */
  stop(ref: ContainerRef): void;
}

const INIT_RUNS_MS = 7 * 24 * 3600 * 1000;

export class GenericBehavior implements Behavior {
  constructor(
    /** The cluster's seeded random source (unused: the generic model draws nothing yet). */
    _rng: Rng,
    /** The cluster's main processes (a thunk: the behavior is built before the context); without it nothing runs. */
    private readonly processesOf?: () => MainProcessTable,
  ) {}

  /** The process table, when this container's command is one the simulation runs. */
  private running(ref: ContainerRef): MainProcessTable | undefined {
    if (!this.processesOf) return undefined;
    const procs = this.processesOf();
    return procs.runs(ref) ? procs : undefined;
  }

  startupMs(ref: ContainerRef): number {
    // an init container that runs its command is done when the command exits (the kubelet takes
    // an init container's startup time as its work otherwise): a week, under the timers' limit
    const init = ((ref.pod as Pod).spec?.initContainers ?? []).some((c) => c.name === ref.container.name);
    if (init && ref.container.restartPolicy !== "Always" && this.running(ref)) return INIT_RUNS_MS;
    const limit = milliCpu(ref.container.resources?.limits?.cpu);
    // 2 s at a full core; a CPU limit stretches startup proportionally (2m takes 1000x longer).
    const base = 2000;
    return limit > 0 && limit < 1000 ? Math.round((base * 1000) / limit) : base;
  }

  probeOk(): boolean {
    return true;
  }

  usage(ref: ContainerRef): Usage {
    const req = ref.container.resources?.requests ?? {};
    const cpu = milliCpu(req.cpu) || 5;
    const mem = bytes(req.memory) || 16 * MiB;
    // idle near a fifth of the CPU request and most of the memory request
    return { cpuMilli: Math.max(1, Math.round(cpu * 0.2)), memoryBytes: Math.round(mem * 0.6) };
  }

  exitCode(ref: ContainerRef, now: number): number | undefined {
    return this.running(ref)?.exit(ref, now)?.code;
  }

  logLines(ref: ContainerRef, moment: "start" | "ready" | "tick" | "stop"): string[] {
    const procs = this.running(ref);
    if (procs) {
      // the process writes its own output; the kubelet's start and stop start and end it
      if (moment === "start") procs.ensure(ref);
      else if (moment === "stop") procs.stop(ref);
      return [];
    }
    if (moment === "start") return [`${ref.container.name}: starting (image ${ref.container.image})`];
    if (moment === "ready") return [`${ref.container.name}: ready`];
    return [];
  }
}
