// The pod row, computed like printPod in kubernetes pkg/printers/internalversion/printers.go.

import type {
  Container,
  ContainerStatus,
  Pod,
  PodSpec,
  PodStatus,
  ReadinessGate,
} from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { humanDuration, parseTime, since } from "./duration.js";
import { AGE_COL, type Cell, col, NAME_COL, type Printer, type RowCondition } from "./types.js";

/** The kubelet's reason for pods on a node that stopped reporting (node controller). */
const NODE_LOST = "NodeLost";

export const podColumns = [
  NAME_COL,
  col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
  col("Status", "string", "The aggregate status of the containers in this pod."),
  col(
    "Restarts",
    "string",
    "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
  ),
  AGE_COL,
  col("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster.", { p: 1 }),
  col("Node", "string", "NodeName indicates in which node this pod is scheduled.", { p: 1 }),
  col("Nominated Node", "string", "nominatedNodeName is set when this pod preempts other pods on the node.", {
    p: 1,
  }),
  col("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.", {
    p: 1,
  }),
];

const isRestartable = (c: Container | undefined) => c?.restartPolicy === "Always";
const hasCondition = (pod: Pod, type: string) =>
  (pod.status?.conditions ?? []).some((c) => c.type === type && c.status === "True");

/** Reason, ready count, restarts: the part of printPod that walks the container statuses. */
export function podStatus(obj: KObject, now: number): { ready: string; reason: string; restarts: string } {
  const pod = obj as Pod;
  // Partial: a pod as first written may lack even the containers its spec requires.
  const spec: Partial<PodSpec> = pod.spec ?? {};
  const status: PodStatus = pod.status ?? {};
  const phase: string = status.phase ?? "";
  let reason: string = status.reason || phase;
  let restarts = 0;
  let sidecarRestarts = 0;
  let readyContainers = 0;
  let totalContainers = (spec.containers ?? []).length;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  const later = (a: number | undefined, b: number | undefined) =>
    b === undefined ? a : a === undefined || b > a ? b : a;

  for (const cond of status.conditions ?? []) {
    if (cond.type === "PodScheduled" && cond.reason === "SchedulingGated") reason = "SchedulingGated";
  }

  const initContainers = new Map<string, Container>();
  for (const c of spec.initContainers ?? []) {
    initContainers.set(c.name, c);
    if (isRestartable(c)) totalContainers++; // sidecars count as regular containers
  }

  let initializing = false;
  const initStatuses: ContainerStatus[] = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    const finished = parseTime(c.lastState?.terminated?.finishedAt);
    restarts += c.restartCount ?? 0;
    lastRestart = later(lastRestart, finished);
    const sidecar = isRestartable(initContainers.get(c.name));
    if (sidecar) {
      sidecarRestarts += c.restartCount ?? 0;
      lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const term = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (sidecar && c.started === true) {
      if (c.ready) readyContainers++;
      continue;
    }
    if (term) {
      if (!term.reason) {
        reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode ?? 0}`;
      } else {
        reason = `Init:${term.reason}`;
      }
    } else if (waiting?.reason && waiting.reason !== "PodInitializing") {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(pod, "Initialized")) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses: ContainerStatus[] = status.containerStatuses ?? [];
    // Walked backwards so the first container's reason is the one that sticks.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      restarts += c.restartCount ?? 0;
      lastRestart = later(lastRestart, parseTime(c.lastState?.terminated?.finishedAt));
      const waiting = c.state?.waiting;
      const term = c.state?.terminated;
      if (waiting?.reason) {
        reason = waiting.reason;
      } else if (term?.reason) {
        reason = term.reason;
      } else if (term) {
        reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      } else if (c.ready && c.state?.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose first container completed while another still runs is not "Completed".
    if (reason === "Completed" && hasRunning) reason = hasCondition(pod, "Ready") ? "Running" : "NotReady";
  }

  const deleting = !!pod.metadata.deletionTimestamp;
  if (deleting && status.reason === NODE_LOST) reason = "Unknown";
  else if (deleting && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";

  let restartsStr = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) {
    restartsStr = `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  }
  return { ready: `${readyContainers}/${totalContainers}`, reason, restarts: restartsStr };
}

function readinessGates(pod: Pod): string {
  const gates: ReadinessGate[] = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return "<none>";
  const conds = pod.status?.conditions ?? [];
  const ok = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === "True").length;
  return `${ok}/${gates.length}`;
}

const SUCCEEDED: RowCondition[] = [
  { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
];
const FAILED: RowCondition[] = [
  { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
];

export const podPrinter: Printer = {
  columns: podColumns,
  cells(obj, { now }): Cell[] {
    const pod = obj as Pod;
    const { ready, reason, restarts } = podStatus(pod, now);
    const st: PodStatus = pod.status ?? {};
    const ip: string = st.podIPs?.[0]?.ip || st.podIP || "<none>";
    return [
      pod.metadata.name ?? "",
      ready,
      reason,
      restarts,
      since(pod.metadata.creationTimestamp, now),
      ip,
      pod.spec?.nodeName || "<none>",
      st.nominatedNodeName || "<none>",
      readinessGates(pod),
    ];
  },
  conditions(obj) {
    const phase = (obj as Pod).status?.phase;
    return phase === "Succeeded" ? SUCCEEDED : phase === "Failed" ? FAILED : undefined;
  },
};
