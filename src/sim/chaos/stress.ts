// StressChaos: chaos-daemon starts stressors (stress-ng for CPU, memStress for memory) inside the
// target container's cgroup. Here that is a FaultBook `stress` record the workload behavior adds
// to the container's demand: workers x load% of a core, and the bytes held. The status keeps an
// `instances` entry per container, as Chaos Mesh does with the stressor processes it started.
// The stressors live in the container's PID namespace: when that container instance ends (an
// OOM kill takes the whole cgroup, a restart, the pod going) they end with it, and Chaos Mesh
// does not start them again (the record stays Injected; recovering finds no process and is done).
import { bytes } from "../../util/quantity.js";
import type { FaultBook, StressFault } from "../context/faults.js";
import { stamp } from "../core/clock.js";
import type { Container, Pod } from "../core/objects.js";
import { type Applier, fail, notFound, ok, runningStatus } from "./applier.js";
import { ContainerInjections } from "./injections.js";
import { parseMemorySize, type StressSpec } from "./spec.js";

/** The stressors of a spec as a fault, or why they cannot run. */
export function stressFault(spec: StressSpec | undefined, memoryLimit: number): StressFault | string {
  const s = spec?.stressors ?? {};
  const fault: StressFault = { kind: "stress" };
  if (s.cpu) {
    const workers = Number(s.cpu.workers ?? 1);
    if (!(workers > 0)) return "the workers of the CPU stressor must be > 0";
    fault.cpu = { workers, load: Math.min(100, Math.max(0, Number(s.cpu.load ?? 100))) };
  }
  if (s.memory) {
    const workers = Number(s.memory.workers ?? 1);
    const size = parseMemorySize(s.memory.size ?? "256MB", memoryLimit);
    if (!(workers > 0) || size === undefined)
      return `invalid memory stressor size ${JSON.stringify(s.memory.size)}`;
    fault.memory = { workers, bytes: size };
  }
  if (!fault.cpu && !fault.memory) return "missing stressors";
  return fault;
}

/** The stress applier, with what it injected where, to notice container instances that end. */
export function stressApplier(faults: FaultBook) {
  const injected = new ContainerInjections(faults, "stress");
  const applier: Applier = {
    apply({ ctx, chaos, source, now, status }, t) {
      if (!t.pod) return fail(notFound(t));
      const st = runningStatus(t.pod, t.container);
      if (!st) return fail(`container ${t.container} of pod ${t.ns}/${t.podName} is not running`);
      const spec = (t.pod.spec?.containers ?? []).find((c: Container) => c.name === t.container);
      const f = stressFault(chaos.spec as StressSpec, bytes(spec?.resources?.limits?.memory));
      if (typeof f === "string") return fail(f);
      injected.add(source, { ...t, pod: t.pod }, st.containerID, f, now);
      const pid = 10000 + ctx.rng.int(50000);
      status.instances = {
        ...(status.instances ?? {}),
        [t.id]: {
          uid: String(pid),
          startTime: stamp(ctx.clock, now),
          ...(f.memory ? { memoryUid: String(pid + 1), memoryStartTime: stamp(ctx.clock, now) } : {}),
        },
      };
      return ok({ podUid: t.pod.metadata.uid!, containerId: st.containerID });
    },
    // a container that disappeared counts as recovered ("pretend ... has been recovered")
    recover({ source, status }, t, inj) {
      injected.recover(source, t, inj, status);
      return ok();
    },
  };
  return {
    applier,
    podChanged: (pod: Pod, gone: boolean) => injected.podChanged(pod, gone),
    forget: (source: string) => injected.forget(source),
  };
}
