// Server-side Table output (meta.k8s.io/v1 Table), what kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`. Like the real API server, every row
// carries all columns (priority-1 ones included); kubectl hides the priority-1 columns unless -o wide.

import type { KObject, ResourceType } from "../../core/types.js";
import {
  controllerRevisionPrinter,
  daemonSetPrinter,
  deploymentPrinter,
  replicaSetPrinter,
  statefulSetPrinter,
} from "./columns-apps.js";
import { cronJobPrinter, jobPrinter } from "./columns-batch.js";
import {
  admissionPolicyBindingPrinter,
  admissionPolicyPrinter,
  apiServicePrinter,
  componentStatusPrinter,
  csrPrinter,
  flowSchemaPrinter,
  leasePrinter,
  priorityClassPrinter,
  priorityLevelPrinter,
  runtimeClassPrinter,
  webhookConfigurationPrinter,
} from "./columns-cluster.js";
import {
  configMapPrinter,
  endpointsPrinter,
  namespacePrinter,
  pvcPrinter,
  pvPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from "./columns-core.js";
import { crdPrinter, defaultConvertorPrinter, nameAgePrinter, type PrinterColumn } from "./columns-custom.js";
import { eventPrinter, nodePrinter } from "./columns-events-nodes.js";
import { podTemplatePrinter, replicationControllerPrinter, resourceQuotaPrinter } from "./columns-legacy.js";
import {
  endpointSlicePrinter,
  ingressClassPrinter,
  ingressPrinter,
  networkPolicyPrinter,
} from "./columns-networking.js";
import { hpaPrinter, metricsPrinter } from "./columns-other.js";
import { pdbPrinter } from "./columns-policy.js";
import { bindingPrinter } from "./columns-rbac.js";
import {
  csiDriverPrinter,
  csiNodePrinter,
  csiStorageCapacityPrinter,
  storageClassPrinter,
  volumeAttachmentPrinter,
} from "./columns-storage.js";
import { podPrinter } from "./pod-status.js";
import type { Printer, Table, TableRow } from "./types.js";

export type { PrinterColumn } from "./columns-custom.js";
export { humanDuration } from "./duration.js";
export { podStatus } from "./pod-status.js";
export type {
  Cell,
  ColumnDefinition,
  PartialObjectMetadata,
  RowCondition,
  Table,
  TableRow,
} from "./types.js";

/** Printers by "group/resource". */
const PRINTERS: Record<string, Printer> = {
  "/pods": podPrinter,
  "/services": servicePrinter,
  "/endpoints": endpointsPrinter,
  "/events": eventPrinter,
  "events.k8s.io/events": eventPrinter,
  "/nodes": nodePrinter,
  "/namespaces": namespacePrinter,
  "/configmaps": configMapPrinter,
  "/secrets": secretPrinter,
  "/serviceaccounts": serviceAccountPrinter,
  "/persistentvolumeclaims": pvcPrinter,
  "/persistentvolumes": pvPrinter,
  "apps/deployments": deploymentPrinter,
  "apps/replicasets": replicaSetPrinter,
  "apps/statefulsets": statefulSetPrinter,
  "apps/daemonsets": daemonSetPrinter,
  "apps/controllerrevisions": controllerRevisionPrinter,
  "autoscaling/horizontalpodautoscalers": hpaPrinter,
  "policy/poddisruptionbudgets": pdbPrinter,
  "batch/jobs": jobPrinter,
  "batch/cronjobs": cronJobPrinter,
  "metrics.k8s.io/pods": metricsPrinter,
  "metrics.k8s.io/nodes": metricsPrinter,
  "rbac.authorization.k8s.io/rolebindings": bindingPrinter,
  "rbac.authorization.k8s.io/clusterrolebindings": bindingPrinter,
  "/podtemplates": podTemplatePrinter,
  "/replicationcontrollers": replicationControllerPrinter,
  "/resourcequotas": resourceQuotaPrinter,
  "/componentstatuses": componentStatusPrinter,
  "networking.k8s.io/ingresses": ingressPrinter,
  "networking.k8s.io/ingressclasses": ingressClassPrinter,
  "networking.k8s.io/networkpolicies": networkPolicyPrinter,
  "discovery.k8s.io/endpointslices": endpointSlicePrinter,
  "scheduling.k8s.io/priorityclasses": priorityClassPrinter,
  "node.k8s.io/runtimeclasses": runtimeClassPrinter,
  "coordination.k8s.io/leases": leasePrinter,
  "certificates.k8s.io/certificatesigningrequests": csrPrinter,
  "storage.k8s.io/storageclasses": storageClassPrinter,
  "storage.k8s.io/csidrivers": csiDriverPrinter,
  "storage.k8s.io/csinodes": csiNodePrinter,
  "storage.k8s.io/csistoragecapacities": csiStorageCapacityPrinter,
  "storage.k8s.io/volumeattachments": volumeAttachmentPrinter,
  "flowcontrol.apiserver.k8s.io/flowschemas": flowSchemaPrinter,
  "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": priorityLevelPrinter,
  "admissionregistration.k8s.io/mutatingwebhookconfigurations": webhookConfigurationPrinter,
  "admissionregistration.k8s.io/validatingwebhookconfigurations": webhookConfigurationPrinter,
  "admissionregistration.k8s.io/validatingadmissionpolicies": admissionPolicyPrinter,
  "admissionregistration.k8s.io/validatingadmissionpolicybindings": admissionPolicyBindingPrinter,
  "apiregistration.k8s.io/apiservices": apiServicePrinter,
};

/** Built-in resources that really have no printer, so the server answers NAME, CREATED AT. */
const NO_PRINTER = new Set([
  "/limitranges",
  "rbac.authorization.k8s.io/roles",
  "rbac.authorization.k8s.io/clusterroles",
  "apiextensions.k8s.io/customresourcedefinitions",
]);

export type IncludeObject = "None" | "Metadata" | "Object";

export interface TableOptions {
  /** Milliseconds since epoch on the cluster clock: ages are computed against it. */
  now: number;
  /** What each row's `object` carries; the API server defaults to Metadata. */
  includeObject?: IncludeObject;
  resourceVersion?: string;
  continue?: string;
  /** Watch events after the first: the server omits the column definitions. */
  noHeaders?: boolean;
  /** For custom resources: the served version's additionalPrinterColumns, when known. */
  printerColumns?: PrinterColumn[];
}

export function printerFor(rt: ResourceType, printerColumns?: PrinterColumn[]): Printer {
  const key = `${rt.group}/${rt.resource}`;
  if (rt.custom) return crdPrinter(printerColumns, rt.kind);
  return PRINTERS[key] ?? (NO_PRINTER.has(key) ? defaultConvertorPrinter : nameAgePrinter);
}

function rowObject(obj: KObject, include: IncludeObject): TableRow["object"] {
  if (include === "None") return null;
  if (include === "Object") return obj;
  // The namespace and labels here are what `kubectl get -A` and `--show-labels` print.
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: { ...obj.metadata } };
}

export function toTable(rt: ResourceType, objects: KObject[], opts: TableOptions): Table {
  const printer = printerFor(rt, opts.printerColumns);
  const include = opts.includeObject ?? "Metadata";
  const ctx = { now: opts.now };
  const rows = objects.map((obj): TableRow => {
    const row: TableRow = { cells: printer.cells(obj, ctx) };
    const conditions = printer.conditions?.(obj);
    if (conditions) row.conditions = conditions;
    row.object = rowObject(obj, include);
    return row;
  });
  const metadata: Table["metadata"] = {};
  if (opts.resourceVersion !== undefined) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue) metadata.continue = opts.continue;
  const columns = typeof printer.columns === "function" ? printer.columns(objects) : printer.columns;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: opts.noHeaders ? [] : columns,
    rows,
  };
}
