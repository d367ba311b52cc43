// core/v1's workload kinds that predate apps/v1 (ReplicationController, PodTemplate) and
// ResourceQuota, as pkg/printers/internalversion/printers.go prints them.
import type { PodTemplate } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { containerCells, formatLabels, int, str } from "./format.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";
import { workloadPrinter } from "./workload.js";

interface ReplicationController extends KObject {
  spec?: { replicas?: number; selector?: Record<string, string>; template?: PodTemplate };
  status?: { replicas?: number; readyReplicas?: number };
}

export const replicationControllerPrinter = workloadPrinter<ReplicationController>({
  own: [
    col(
      "Desired",
      "integer",
      "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
    ),
    col(
      "Current",
      "integer",
      "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
    ),
    col("Ready", "integer", "The number of ready replicas for this replication controller."),
  ],
  cells(o) {
    return [
      typeof o.spec?.replicas === "number" ? o.spec.replicas : 1,
      int(o.status?.replicas),
      int(o.status?.readyReplicas),
    ];
  },
  podSpec: (o) => o.spec?.template?.spec,
  selector: {
    description:
      "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    cell: (o) => formatLabels(o.spec?.selector),
  },
});

interface PodTemplateObject extends KObject {
  template?: PodTemplate;
}

export const podTemplatePrinter: Printer = {
  columns: [
    NAME_COL,
    col("Containers", "string", "Names of each container in the template."),
    col("Images", "string", "Images referenced by each container in the template."),
    col("Pod Labels", "string", "The labels for the pod template."),
  ],
  cells(obj) {
    const o = obj as PodTemplateObject;
    const [names, images] = containerCells(o.template?.spec);
    return [o.metadata.name ?? "", names, images, formatLabels(o.template?.metadata?.labels)];
  },
};

interface ResourceQuota extends KObject {
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

/**
 * printResourceQuota: "resource: used/hard" for each hard limit, sorted by name, the limits.*
 * ones in LIMIT and the rest in REQUEST (v1.31 prints AGE second; v1.33 moved it last).
 */
export const resourceQuotaPrinter: Printer = {
  columns: [
    NAME_COL,
    AGE_COL,
    col(
      "Request",
      "string",
      "Request represents a minimum amount of cpu/memory that a container may consume.",
    ),
    col(
      "Limit",
      "string",
      "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
    ),
  ],
  cells(obj, { now }) {
    const o = obj as ResourceQuota;
    const hard = o.status?.hard ?? {};
    const used = o.status?.used ?? {};
    const request: string[] = [];
    const limit: string[] = [];
    for (const r of Object.keys(hard).sort()) {
      const pieces = r.split(".");
      const to = pieces.length > 1 && pieces[0] === "limits" ? limit : request;
      to.push(`${r}: ${str(used[r] ?? "0")}/${str(hard[r])}`);
    }
    return [
      o.metadata.name ?? "",
      since(o.metadata.creationTimestamp, now),
      request.join(", "),
      limit.join(", "),
    ];
  },
};
