// storage.k8s.io kinds, as pkg/printers/internalversion/printers.go prints them (printStorageClass,
// printCSIDriver, printCSINode, printCSIStorageCapacity, printVolumeAttachment).
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { str } from "./format.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";

const name = (o: KObject) => o.metadata.name ?? "";
const age = (o: KObject, now: number) => since(o.metadata.creationTimestamp, now);
type Open = Record<string, unknown>;
const spec = (o: KObject): Open => (o.spec && typeof o.spec === "object" ? (o.spec as Open) : {});
const bool = (v: unknown, dflt: boolean) => (typeof v === "boolean" ? v : dflt);

/** storageutil.IsDefaultAnnotation: the current annotation or the beta one. */
function isDefault(o: KObject): boolean {
  const a = o.metadata.annotations ?? {};
  return (
    a["storageclass.kubernetes.io/is-default-class"] === "true" ||
    a["storageclass.beta.kubernetes.io/is-default-class"] === "true"
  );
}

export const storageClassPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Provisioner", "string", "provisioner indicates the type of the provisioner."),
    col(
      "ReclaimPolicy",
      "string",
      "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
    ),
    col(
      "VolumeBindingMode",
      "string",
      "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
    ),
    col(
      "AllowVolumeExpansion",
      "string",
      "allowVolumeExpansion shows whether the storage class allow volume expand.",
    ),
    AGE_COL,
  ],
  cells: (o, { now }) => [
    isDefault(o) ? `${name(o)} (default)` : name(o),
    str(o.provisioner),
    str(o.reclaimPolicy) || "Delete",
    str(o.volumeBindingMode) || "Immediate",
    bool(o.allowVolumeExpansion, false),
    age(o, now),
  ],
};

export const csiDriverPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "AttachRequired",
      "boolean",
      "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting.",
    ),
    col(
      "PodInfoOnMount",
      "boolean",
      "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true.",
    ),
    col(
      "StorageCapacity",
      "boolean",
      "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.",
    ),
    col(
      "TokenRequests",
      "string",
      "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
    ),
    col(
      "RequiresRepublish",
      "boolean",
      "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.",
    ),
    col(
      "Modes",
      "string",
      "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.",
    ),
    AGE_COL,
  ],
  cells(o, { now }) {
    const s = spec(o);
    const tokens = s.tokenRequests as { audience?: string }[] | undefined;
    const modes = ((s.volumeLifecycleModes ?? []) as string[]).join(",");
    return [
      name(o),
      bool(s.attachRequired, true),
      bool(s.podInfoOnMount, false),
      bool(s.storageCapacity, false),
      tokens ? tokens.map((t) => str(t.audience)).join(",") : "<unset>",
      bool(s.requiresRepublish, false),
      modes || "<none>",
      age(o, now),
    ];
  },
};

export const csiNodePrinter: Printer = {
  columns: [
    NAME_COL,
    col("Drivers", "integer", "Drivers indicates the number of CSI drivers registered on the node"),
    AGE_COL,
  ],
  cells: (o, { now }) => [name(o), ((spec(o).drivers ?? []) as unknown[]).length, age(o, now)],
};

export const csiStorageCapacityPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "StorageClassName",
      "string",
      "storageClassName represents the name of the StorageClass that the reported capacity applies to. It must meet the same requirements as the name of a StorageClass object (non-empty, DNS subdomain). If that object no longer exists, the CSIStorageCapacity object is obsolete and should be removed by its creator. This field is immutable.",
    ),
    col(
      "Capacity",
      "string",
      "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.",
    ),
  ],
  cells: (o) => [name(o), str(o.storageClassName), o.capacity === undefined ? "<unset>" : str(o.capacity)],
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Attacher",
      "string",
      "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().",
      { format: "name" },
    ),
    col("PV", "string", "persistentVolumeName represents the name of the persistent volume to attach."),
    col("Node", "string", "nodeName represents the node that the volume should be attached to."),
    col(
      "Attached",
      "boolean",
      "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.",
    ),
    AGE_COL,
  ],
  cells(o, { now }) {
    const s = spec(o);
    const source = (s.source ?? {}) as Open;
    const status = (o.status ?? {}) as Open;
    return [
      name(o),
      str(s.attacher),
      str(source.persistentVolumeName),
      str(s.nodeName),
      status.attached === true,
      age(o, now),
    ];
  },
};
