// The printers of kinds that run a pod template (printDeployment, printReplicaSet, printDaemonSet,
// printStatefulSet, printJob, printCronJob, printReplicationController in kubectl's
// pkg/printers/internalversion/printers.go): Name, the kind's own columns, Age, then -o wide's
// Containers, Images and, for all but StatefulSet, Selector.
import type { PodSpec } from "../../core/objects.js";
import type { KObject } from "../../core/types.js";
import { since } from "./duration.js";
import { containerCells } from "./format.js";
import {
  AGE_COL,
  type Cell,
  CONTAINERS_COL,
  type ColumnDefinition,
  col,
  IMAGES_COL,
  NAME_COL,
  type Printer,
} from "./types.js";

export interface WorkloadColumns<T extends KObject> {
  /** The kind's own columns, between Name and Age, and their cells. */
  own: ColumnDefinition[];
  cells(o: T, now: number): Cell[];
  podSpec(o: T): PodSpec | undefined;
  /** The -o wide Selector column's description, and its cell. */
  selector?: { description: string; cell(o: T): string };
}

export function workloadPrinter<T extends KObject>(w: WorkloadColumns<T>): Printer {
  const selector = w.selector ? [col("Selector", "string", w.selector.description, { p: 1 })] : [];
  return {
    columns: [NAME_COL, ...w.own, AGE_COL, CONTAINERS_COL, IMAGES_COL, ...selector],
    cells(obj, { now }) {
      const o = obj as T;
      const [names, images] = containerCells(w.podSpec(o));
      return [
        o.metadata.name ?? "",
        ...w.cells(o, now),
        since(o.metadata.creationTimestamp, now),
        names,
        images,
        ...(w.selector ? [w.selector.cell(o)] : []),
      ];
    },
  };
}
