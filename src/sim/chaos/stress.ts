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
import { type Applier, addContainer, fail, notFound, ok, removeContainer, runningStatus } from "./applier.js";
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
  /** "<source>|<podUid>|<container>" -> the container id injected into. */
  const live = new Map<string, string | undefined>();
  const applier: Applier = {
    apply({ ctx, chaos, source, now, status }, t) {
      if (!t.pod) return fail(notFound(t));
      const st = runningStatus(t.pod, t.container);
      if (!st) return fail(`container ${t.container} of pod ${t.ns}/${t.podName} is not running`);
      const spec = (t.pod.spec?.containers ?? []).find((c: Container) => c.name === t.container);
      const f = stressFault(chaos.spec as StressSpec, bytes(spec?.resources?.limits?.memory));
      if (typeof f === "string") return fail(f);
      addContainer(ctx.faults, source, t.pod.metadata.uid!, t.container!, f, now);
      live.set(`${source}|${t.pod.metadata.uid}|${t.container}`, st.containerID);
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
    recover({ ctx, source, status }, t, inj) {
      // a container that disappeared counts as recovered ("pretend ... has been recovered")
      if (inj) {
        removeContainer(ctx.faults, source, inj.podUid, t.container!, "stress");
        live.delete(`${source}|${inj.podUid}|${t.container}`);
      }
      if (status.instances) {
        const { [t.id]: _gone, ...rest } = status.instances;
        status.instances = rest;
      }
      return ok();
    },
  };

  /** A pod changed or left: stressors of a container instance that ended are gone with it. */
  function podChanged(pod: Pod, gone: boolean): void {
    for (const [key, containerId] of live) {
      const [source, podUid, container] = key.split("|");
      if (podUid !== pod.metadata.uid) continue;
      if (!gone && runningStatus(pod, container)?.containerID === containerId) continue;
      removeContainer(faults, source, podUid, container, "stress");
      live.delete(key);
    }
  }

  /** The object left the store: forget its injections. */
  function forget(source: string): void {
    for (const key of [...live.keys()]) if (key.startsWith(`${source}|`)) live.delete(key);
  }

  return { applier, podChanged, forget };
}
