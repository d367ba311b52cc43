// Events and nodes: the two cluster-watching tables with the most derived cells.

import type { EventsV1Event } from "@kubernetes/client-node";
import type { Event, Node, Stored } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { parseTime, since } from "./duration.js";
import { str } from "./format.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";

const time = (ts: unknown, now: number) => (parseTime(ts) === undefined ? undefined : since(ts, now));

/** An events.k8s.io/v1 Event as stored. */
type NewEvent = KObject & Omit<Stored<EventsV1Event>, "apiVersion" | "kind" | "metadata">;

/** What printEvent reads: the core/v1 fields (the Go field ReportingController is
 * `reportingComponent` in core/v1's JSON, k8s.io/api/core/v1/types.go), and the new API's series. */
interface PrintedEvent extends Event {
  series?: { count?: number; lastObservedTime?: string };
  reportingComponent?: string;
}

/** events.k8s.io/v1 renames the core/v1 fields; both are printed by the same internal printer. */
function asCoreEvent(obj: KObject): PrintedEvent {
  if (!obj.apiVersion?.startsWith("events.k8s.io/")) return obj as PrintedEvent;
  const e = obj as NewEvent;
  return {
    ...e,
    involvedObject: e.regarding ?? {},
    message: e.note,
    source: e.deprecatedSource ?? {},
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    count: e.deprecatedCount,
    reportingComponent: e.reportingController,
  };
}

export const eventPrinter: Printer = {
  columns: [
    col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    col(
      "Reason",
      "string",
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    col("Object", "string", "The object that this event is about."),
    col(
      "Subobject",
      "string",
      "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.",
      { p: 1 },
    ),
    col(
      "Source",
      "string",
      "The component reporting this event. Should be a short machine understandable string.",
      { p: 1 },
    ),
    col("Message", "string", "A human-readable description of the status of this operation."),
    col(
      "First Seen",
      "string",
      "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
      { p: 1 },
    ),
    col("Count", "string", "The number of times this event has occurred.", { p: 1 }),
    { ...NAME_COL, priority: 1 },
  ],
  cells(raw, { now }) {
    const e = asCoreEvent(raw);
    const first = time(e.firstTimestamp, now) ?? since(e.eventTime, now);
    let last = time(e.lastTimestamp, now) ?? first;
    let count: number = e.count ?? 0;
    if (e.series) {
      last = since(e.series.lastObservedTime, now);
      count = e.series.count ?? 0;
    } else if (count === 0) {
      count = 1; // singleton events of the new API carry no count
    }
    const io = e.involvedObject ?? {};
    const kind = str(io.kind).toLowerCase();
    const target = io.name ? `${kind}/${io.name}` : kind;
    const component = e.source?.component || e.reportingComponent || "";
    const host = e.source?.host || e.reportingInstance || "";
    return [
      last,
      str(e.type),
      str(e.reason),
      target,
      str(io.fieldPath),
      host ? `${component}, ${host}` : component,
      str(e.message).trim(),
      first,
      count,
      raw.metadata.name ?? "",
    ];
  },
};

/** findNodeRoles: node-role.kubernetes.io/<role> keys and the legacy kubernetes.io/role value. */
export function nodeRoles(labels: Record<string, string> | undefined): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith("node-role.kubernetes.io/")) {
      const role = k.slice("node-role.kubernetes.io/".length);
      if (role) roles.add(role);
    } else if (k === "kubernetes.io/role" && v) {
      roles.add(v);
    }
  }
  return [...roles].sort().join(",") || "<none>";
}

function nodeStatus(node: Node): string {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === "Ready");
  const status = [ready ? (ready.status === "True" ? "Ready" : "NotReady") : "Unknown"];
  if (node.spec?.unschedulable) status.push("SchedulingDisabled");
  return status.join(",");
}

const address = (node: Node, type: string): string =>
  (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? "<none>";

export const nodePrinter: Printer = {
  columns: [
    NAME_COL,
    col("Status", "string", "The status of the node"),
    col("Roles", "string", "The roles of the node"),
    AGE_COL,
    col("Version", "string", "Kubelet Version reported by the node."),
    col("Internal-IP", "string", "List of addresses reachable to the node.", { p: 1 }),
    col("External-IP", "string", "List of addresses reachable to the node.", { p: 1 }),
    col(
      "OS-Image",
      "string",
      "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      { p: 1 },
    ),
    col(
      "Kernel-Version",
      "string",
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      { p: 1 },
    ),
    col(
      "Container-Runtime",
      "string",
      "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      { p: 1 },
    ),
  ],
  cells(obj, { now }) {
    const o = obj as Node;
    // Partial: a node the kubelet has not reported on yet has no versions.
    const info: Partial<NonNullable<NonNullable<Node["status"]>["nodeInfo"]>> = o.status?.nodeInfo ?? {};
    return [
      o.metadata.name ?? "",
      nodeStatus(o),
      nodeRoles(o.metadata.labels),
      since(o.metadata.creationTimestamp, now),
      str(info.kubeletVersion),
      address(o, "InternalIP"),
      address(o, "ExternalIP"),
      info.osImage || "<unknown>",
      info.kernelVersion || "<unknown>",
      info.containerRuntimeVersion || "<unknown>",
    ];
  },
};
