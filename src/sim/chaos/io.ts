// IOChaos: chaos-daemon runs toda, a FUSE layer over the volume, inside the target container's
// process tree. Here that is a FaultBook `io` record for the container. The injection lives as
// long as that container instance: once the container restarts (or the pod goes), the fault is
// gone with the process, and recovery has nothing to talk to. Chaos Mesh then fails to recover
// the record, so the finalizer stays and `kubectl delete` hangs until someone patches
// metadata.finalizers to [] (docs/failures.md). With the injected container still running, recovery
// works and the object goes.

import { parseGoDuration } from "../../util/duration.js";
import type { FaultBook, IOFault } from "../context/faults.js";
import type { Container, Pod, VolumeMount } from "../core/objects.js";
import {
  type Applier,
  fail,
  type Injection,
  notFound,
  ok,
  runningStatus,
  samePod,
  type Target,
} from "./applier.js";
import { ContainerInjections } from "./injections.js";
import type { IOSpec } from "./spec.js";

const ACTIONS = ["latency", "fault", "attrOverride", "mistake"] as const;

const isAction = (a: unknown): a is IOFault["action"] => (ACTIONS as readonly unknown[]).includes(a);

export function ioFault(spec: IOSpec): IOFault | string {
  const action = spec?.action;
  if (!isAction(action)) return `action ${action} not supported`;
  if (!spec.volumePath) return "volumePath is required";
  const f: IOFault = {
    kind: "io",
    action,
    volumePath: spec.volumePath,
    percent: Number(spec.percent ?? 100),
  };
  if (spec.path) f.path = spec.path;
  if (action === "latency") {
    f.delayMs = parseGoDuration(spec.delay);
    if (f.delayMs === undefined) return `invalid delay ${JSON.stringify(spec.delay)}`;
  }
  if (action === "fault") f.errno = Number(spec.errno ?? 5);
  return f;
}

/** The IO applier, with what it injected where, to notice containers that restart. */
export function ioApplier(faults: FaultBook) {
  const injected = new ContainerInjections(faults, "io");
  const applier: Applier = {
    apply({ chaos, source, now, status }, t) {
      if (!t.pod) return fail(notFound(t));
      const st = runningStatus(t.pod, t.container);
      if (!st) return fail(`container ${t.container} of pod ${t.ns}/${t.podName} is not running`);
      const spec = (t.pod.spec?.containers ?? []).find((c: Container) => c.name === t.container);
      const f = ioFault(chaos.spec as IOSpec);
      if (typeof f === "string") return fail(f);
      // toda mounts over an existing mount point of the container
      if (!(spec?.volumeMounts ?? []).some((m: VolumeMount) => m.mountPath === f.volumePath))
        return fail(`volume path ${f.volumePath} is not a mount point of container ${t.container}`);
      injected.add(source, { ...t, pod: t.pod }, st.containerID, f, now);
      status.instances = { ...(status.instances ?? {}), [t.id]: Number(status.instances?.[t.id] ?? 0) + 1 };
      return ok({ podUid: t.pod.metadata.uid!, containerId: st.containerID });
    },
    recover({ source, status }, t, inj) {
      const reason = unreachable(t, inj);
      if (reason) return fail(reason);
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

/** Why recovery cannot reach the injection, if it cannot. */
function unreachable(t: Target, inj: Injection | undefined): string | undefined {
  if (!inj) return undefined; // never injected: nothing to undo
  if (!samePod(t, inj)) return `pods "${t.podName}" not found`;
  if (runningStatus(t.pod, t.container)?.containerID !== inj.containerId)
    return `rpc error: code = Unknown desc = container ${t.container} of pod ${t.ns}/${t.podName} restarted since injection: the injected toda process is gone`;
  return undefined;
}
