// Shapes of a meta.k8s.io/v1 Table and of the per-kind printers that fill one.
import type { KObject } from "../../core/types.js";

export type Cell = string | number | boolean | null;

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PartialObjectMetadata {
  kind: "PartialObjectMetadata";
  apiVersion: "meta.k8s.io/v1";
  metadata: KObject["metadata"];
}

export interface TableRow {
  cells: Cell[];
  conditions?: RowCondition[];
  object?: PartialObjectMetadata | KObject | null;
}

export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: ColumnDefinition[];
  rows: TableRow[];
}

/** The per-call context a printer needs: the cluster clock, so ages are deterministic. */
export interface PrintContext {
  now: number;
}

export interface Printer {
  /** Columns may depend on the objects (metrics-server derives them from the first item). */
  columns: ColumnDefinition[] | ((objects: KObject[]) => ColumnDefinition[]);
  cells(obj: KObject, ctx: PrintContext): Cell[];
  conditions?(obj: KObject): RowCondition[] | undefined;
}

/** One column definition; `p` marks the priority-1 (`-o wide`) columns. */
export function col(name: string, type: string, description: string, opts: { p?: 1; format?: string } = {}) {
  return { name, type, format: opts.format ?? "", description, priority: opts.p ?? 0 };
}

export const NAME_DESC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

export const AGE_DESC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

export const NAME_COL = col("Name", "string", NAME_DESC, { format: "name" });
export const AGE_COL = col("Age", "string", AGE_DESC);
export const CONTAINERS_COL = col("Containers", "string", "Names of each container in the template.", {
  p: 1,
});
export const IMAGES_COL = col("Images", "string", "Images referenced by each container in the template.", {
  p: 1,
});
