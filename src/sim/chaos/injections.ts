// What a chaos kind that injects into a container's processes (IOChaos's toda, StressChaos's
// stressors) keeps of each injection: the container instance it went into. The injection lives as
// long as that instance: when the container restarts or the pod goes, it is gone from the
// FaultBook with the processes; recovering undoes it and drops the instance from the status.
import type { FaultBook } from "../context/faults.js";
import type { Pod } from "../core/objects.js";
import { addContainer, type Injection, removeContainer, runningStatus, type Target } from "./applier.js";

type Kind = "io" | "stress";
type Fault = Parameters<typeof addContainer>[4];
interface Instances {
  instances?: Record<string, unknown>;
}

export class ContainerInjections {
  /** "<source>|<podUid>|<container>" -> the container id injected into. */
  private readonly live = new Map<string, string | undefined>();

  constructor(
    private readonly faults: FaultBook,
    private readonly kind: Kind,
  ) {}

  /** Injects into the target's container, the instance whose id is `containerId`. */
  add(source: string, t: Target & { pod: Pod }, containerId: string | undefined, fault: Fault, now: number) {
    addContainer(this.faults, source, t.pod.metadata.uid!, t.container!, fault, now);
    this.live.set(`${source}|${t.pod.metadata.uid}|${t.container}`, containerId);
  }

  /** Undoes an injection (if there was one) and drops the target from the status' instances. */
  recover(source: string, t: Target, inj: Injection | undefined, status: Instances) {
    if (inj) {
      removeContainer(this.faults, source, inj.podUid, t.container!, this.kind);
      this.live.delete(`${source}|${inj.podUid}|${t.container}`);
    }
    if (status.instances) {
      const { [t.id]: _gone, ...rest } = status.instances;
      status.instances = rest;
    }
  }

  /** A pod changed or left: an injected container instance that ended took its injection along. */
  podChanged(pod: Pod, gone: boolean): void {
    for (const [key, containerId] of this.live) {
      const [source, podUid, container] = key.split("|");
      if (podUid !== pod.metadata.uid) continue;
      if (!gone && runningStatus(pod, container)?.containerID === containerId) continue;
      // the FaultBook forgets it; recovery still finds it unreachable (it compares container ids)
      removeContainer(this.faults, source, podUid, container, this.kind);
      this.live.delete(key);
    }
  }

  /** The object left the store (its finalizer cleared by hand): forget its injections. */
  forget(source: string): void {
    for (const key of [...this.live.keys()]) if (key.startsWith(`${source}|`)) this.live.delete(key);
  }
}
