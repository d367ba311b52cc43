// The behavior of a container no topology describes: it starts in a couple of seconds (slower
// when its CPU limit is small), passes its probe once started, uses about what it requests, and
// logs that it started. Any manifest a user brings runs with this.
import { bytes, MiB, milliCpu } from "../../util/quantity.js";
import type { Rng } from "../../util/rng.js";
import type { Behavior, ContainerRef, Usage } from "./behavior.js";

export class GenericBehavior implements Behavior {
  constructor(private readonly rng: Rng) {}

  startupMs(ref: ContainerRef): number {
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

  logLines(ref: ContainerRef, moment: "start" | "ready" | "tick" | "stop"): string[] {
    if (moment === "start") return [`${ref.container.name}: starting (image ${ref.container.image})`];
    if (moment === "ready") return [`${ref.container.name}: ready`];
    return [];
  }
}
