// Core (v1) kinds other than pods, events and nodes: columns and cells as the API server prints them.

import type {
  V1PersistentVolumeClaimSpec,
  V1PersistentVolumeClaimStatus,
  V1PersistentVolumeSpec,
  V1PersistentVolumeStatus,
} from "@kubernetes/client-node";
import type {
  EndpointSubset,
  Endpoints,
  Namespace,
  Service,
  ServiceAccount,
  ServicePort,
  Stored,
} from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { accessModes, formatLabels, joinHostPort, str } from "./format.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";

const name = (o: KObject): string => o.metadata?.name ?? "";

// The volume kinds are printed but not otherwise read by the simulator, so objects.ts has no view.
interface PersistentVolumeClaim extends KObject {
  spec?: Stored<V1PersistentVolumeClaimSpec>;
  status?: Stored<V1PersistentVolumeClaimStatus>;
}
interface PersistentVolume extends KObject {
  spec?: Stored<V1PersistentVolumeSpec>;
  status?: Stored<V1PersistentVolumeStatus>;
}

/** getServiceExternalIP as the server calls it (wide, so load-balancer lists are never clipped). */
function serviceExternalIP(svc: Service): string {
  const spec = svc.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type ?? "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return external.length > 0 ? external.join(",") : "<none>";
    case "LoadBalancer": {
      const ingress = svc.status?.loadBalancer?.ingress ?? [];
      const lb = [...new Set(ingress.map((i) => i.ip || i.hostname).filter(Boolean) as string[])].sort();
      const all = [...lb, ...external];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(spec.externalName);
  }
  return "<unknown>";
}

/** makePortString: "80/TCP", or "80:30080/TCP" when a node port is allocated. */
export function servicePorts(ports: ServicePort[] | undefined): string {
  const s = (ports ?? [])
    .map((p) => {
      const proto = p.protocol ?? "TCP";
      return (p.nodePort ?? 0) > 0 ? `${p.port}:${p.nodePort}/${proto}` : `${p.port}/${proto}`;
    })
    .join(",");
  return s || "<none>";
}

export const servicePrinter: Printer = {
  columns: [
    NAME_COL,
    col("Type", "string", "type determines how the Service is exposed."),
    col(
      "Cluster-IP",
      "string",
      "clusterIP is the IP address of the service and is usually assigned randomly.",
    ),
    col(
      "External-IP",
      "string",
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
    ),
    col("Port(s)", "string", "The list of ports that are exposed by this service."),
    AGE_COL,
    col(
      "Selector",
      "string",
      "Route service traffic to pods with label keys and values matching this selector.",
      { p: 1 },
    ),
  ],
  cells(obj, { now }) {
    const o = obj as Service;
    const spec = o.spec ?? {};
    const clusterIP: string = spec.clusterIPs?.[0] || spec.clusterIP || "<none>";
    return [
      name(o),
      spec.type ?? "ClusterIP",
      clusterIP,
      serviceExternalIP(o),
      servicePorts(spec.ports),
      since(o.metadata.creationTimestamp, now),
      formatLabels(spec.selector),
    ];
  },
};

/** formatEndpoints: up to three ip:port pairs, then "+ N more...". */
export function formatEndpoints(subsets: EndpointSubset[] | undefined): string {
  if (!subsets || subsets.length === 0) return "<none>";
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addrs = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      // Headless services may have no ports.
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(a.ip);
      }
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(joinHostPort(a.ip, p.port));
      }
    }
  }
  const ret = list.join(",");
  return more ? `${ret} + ${count - max} more...` : ret;
}

export const endpointsPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Endpoints", "string", "The set of all endpoints is the union of all subsets."),
    AGE_COL,
  ],
  cells: (o, { now }) => [
    name(o),
    formatEndpoints((o as Endpoints).subsets),
    since(o.metadata.creationTimestamp, now),
  ],
};

export const namespacePrinter: Printer = {
  columns: [NAME_COL, col("Status", "string", "The status of the namespace"), AGE_COL],
  cells: (o, { now }) => [
    name(o),
    str((o as Namespace).status?.phase),
    since(o.metadata.creationTimestamp, now),
  ],
};

const count = (m: unknown) => (m && typeof m === "object" ? Object.keys(m).length : 0);

export const configMapPrinter: Printer = {
  columns: [NAME_COL, col("Data", "string", "Data contains the configuration data."), AGE_COL],
  cells: (o, { now }) => [
    name(o),
    count(o.data) + count(o.binaryData),
    since(o.metadata.creationTimestamp, now),
  ],
};

export const secretPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Type", "string", "Used to facilitate programmatic handling of secret data."),
    col("Data", "string", "Data contains the secret data."),
    AGE_COL,
  ],
  // The API server decodes stringData into data on write, so only data is counted.
  cells: (o, { now }) => [name(o), str(o.type), count(o.data), since(o.metadata.creationTimestamp, now)],
};

export const serviceAccountPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Secrets", "string", "Secrets is a list of the secrets in the same namespace."),
    AGE_COL,
  ],
  cells: (o, { now }) => [
    name(o),
    ((o as ServiceAccount).secrets ?? []).length,
    since(o.metadata.creationTimestamp, now),
  ],
};

const storageClassOf = (o: PersistentVolumeClaim | PersistentVolume): string =>
  o.metadata?.annotations?.["volume.beta.kubernetes.io/storage-class"] ?? o.spec?.storageClassName ?? "";

export const pvcPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Status", "string", "phase represents the current phase of PersistentVolumeClaim."),
    col(
      "Volume",
      "string",
      "volumeName is the binding reference to the PersistentVolume backing this claim.",
    ),
    col("Capacity", "string", "capacity represents the actual resources of the underlying volume."),
    col(
      "Access Modes",
      "string",
      "accessModes contains the actual access modes the volume backing the PVC has.",
    ),
    col("StorageClass", "string", "StorageClass of the pvc"),
    col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
    AGE_COL,
    col("VolumeMode", "string", "volumeMode defines what type of volume is required by the claim.", { p: 1 }),
  ],
  cells(obj, { now }) {
    const o = obj as PersistentVolumeClaim;
    const bound = !!o.spec?.volumeName;
    return [
      name(o),
      o.metadata.deletionTimestamp ? "Terminating" : str(o.status?.phase),
      str(o.spec?.volumeName),
      bound ? str(o.status?.capacity?.storage ?? "0") : "",
      bound ? accessModes(o.status?.accessModes) : "",
      storageClassOf(o),
      o.spec?.volumeAttributesClassName ?? "<unset>",
      since(o.metadata.creationTimestamp, now),
      o.spec?.volumeMode ?? "<unset>",
    ];
  },
};

export const pvPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Capacity",
      "string",
      "capacity is the description of the persistent volume's resources and capacity.",
    ),
    col("Access Modes", "string", "accessModes contains all ways the volume can be mounted."),
    col(
      "Reclaim Policy",
      "string",
      "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.",
    ),
    col(
      "Status",
      "string",
      "phase indicates if a volume is available, bound to a claim, or released by a claim.",
    ),
    col(
      "Claim",
      "string",
      "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
    ),
    col("StorageClass", "string", "StorageClass of the pv"),
    col("VolumeAttributesClass", "string", "VolumeAttributesClass of the pv"),
    col("Reason", "string", "reason is a brief CamelCase string that describes any failure."),
    AGE_COL,
    col(
      "VolumeMode",
      "string",
      "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.",
      { p: 1 },
    ),
  ],
  cells(obj, { now }) {
    const o = obj as PersistentVolume;
    const ref = o.spec?.claimRef;
    return [
      name(o),
      str(o.spec?.capacity?.storage ?? "0"),
      accessModes(o.spec?.accessModes),
      str(o.spec?.persistentVolumeReclaimPolicy),
      o.metadata.deletionTimestamp ? "Terminating" : str(o.status?.phase),
      ref ? `${ref.namespace ?? ""}/${ref.name ?? ""}` : "",
      storageClassOf(o),
      o.spec?.volumeAttributesClassName ?? "<unset>",
      str(o.status?.reason),
      since(o.metadata.creationTimestamp, now),
      o.spec?.volumeMode ?? "<unset>",
    ];
  },
};
