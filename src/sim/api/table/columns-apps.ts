// apps/v1 kinds: the workload controllers and their revisions.
import type {
  ControllerRevision,
  DaemonSet,
  Deployment,
  ReplicaSet,
  ReplicaSetStatus,
  StatefulSet,
} from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { formatLabelSelector, formatLabels, int, labelSelectorString } from "./format.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";
import { workloadPrinter } from "./workload.js";

const name = (o: KObject): string => o.metadata?.name ?? "";
/** spec.replicas defaults to 1; stored objects normally carry it already. */
const desired = (o: Deployment | ReplicaSet | StatefulSet): number =>
  typeof o.spec?.replicas === "number" ? o.spec.replicas : 1;
const _selectorCol = (description: string) => col("Selector", "string", description, { p: 1 });

export const deploymentPrinter = workloadPrinter<Deployment>({
  own: [
    col("Ready", "string", "Number of the pod with ready state"),
    col(
      "Up-to-date",
      "string",
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
    ),
    col(
      "Available",
      "string",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
  ],
  cells(o) {
    const st = o.status ?? {};
    return [`${int(st.readyReplicas)}/${desired(o)}`, int(st.updatedReplicas), int(st.availableReplicas)];
  },
  podSpec: (o) => o.spec?.template?.spec,
  // printDeployment uses selector.String() directly: an empty selector prints blank, not <none>.
  selector: {
    description:
      "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
    cell: (o) => labelSelectorString(o.spec?.selector),
  },
});

export const replicaSetPrinter = workloadPrinter<ReplicaSet>({
  own: [
    col("Desired", "integer", "Replicas is the number of desired replicas."),
    col("Current", "integer", "Replicas is the most recently observed number of replicas."),
    col("Ready", "integer", "The number of ready replicas for this replica set."),
  ],
  cells(o) {
    // Partial: a set the controller has not synced yet has no status counts.
    const st: Partial<ReplicaSetStatus> = o.status ?? {};
    return [desired(o), int(st.replicas), int(st.readyReplicas)];
  },
  podSpec: (o) => o.spec?.template?.spec,
  selector: {
    description: "Selector is a label query over pods that should match the replica count.",
    cell: (o) => formatLabelSelector(o.spec?.selector),
  },
});

export const statefulSetPrinter = workloadPrinter<StatefulSet>({
  own: [col("Ready", "string", "Number of the pod with ready state")],
  cells(o) {
    return [`${int(o.status?.readyReplicas)}/${desired(o)}`];
  },
  podSpec: (o) => o.spec?.template?.spec,
});

export const daemonSetPrinter = workloadPrinter<DaemonSet>({
  own: [
    col("Desired", "integer", "The total number of nodes that should be running the daemon pod."),
    col(
      "Current",
      "integer",
      "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
    ),
    col(
      "Ready",
      "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
    ),
    col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod"),
    col(
      "Available",
      "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.",
    ),
    col(
      "Node Selector",
      "string",
      "NodeSelector is a selector which must be true for the pod to fit on a node.",
    ),
  ],
  cells(o) {
    const st: Partial<NonNullable<DaemonSet["status"]>> = o.status ?? {};
    return [
      int(st.desiredNumberScheduled),
      int(st.currentNumberScheduled),
      int(st.numberReady),
      int(st.updatedNumberScheduled),
      int(st.numberAvailable),
      formatLabels(o.spec?.template?.spec?.nodeSelector),
    ];
  },
  podSpec: (o) => o.spec?.template?.spec,
  selector: {
    description: "A label query over pods that are managed by the daemon set.",
    cell: (o) => formatLabelSelector(o.spec?.selector),
  },
});

/** "statefulset.apps/web": the lower-cased group kind of the controlling owner, then its name. */
function controllerOf(o: KObject): string {
  const ref = (o.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if (!ref) return "<none>";
  const apiVersion: string = ref.apiVersion ?? "";
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind: string = ref.kind ?? "";
  if (!kind) return ref.name ?? "";
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${ref.name ?? ""}`;
}

export const controllerRevisionPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Controller", "string", "Controller of the object"),
    col("Revision", "string", "Revision indicates the revision of the state represented by Data."),
    AGE_COL,
  ],
  cells: (o, { now }) => [
    name(o),
    controllerOf(o),
    int((o as ControllerRevision).revision),
    since(o.metadata.creationTimestamp, now),
  ],
};
