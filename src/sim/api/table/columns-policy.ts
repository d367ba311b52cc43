// PodDisruptionBudget columns, as pkg/printers/internalversion/printers.go prints them.
import type { PodDisruptionBudget } from "../../core/objects.js";
import { since } from "./duration.js";
import { AGE_COL, col, NAME_COL, type Printer } from "./types.js";

const orNA = (v: unknown) => (v === undefined || v === null ? "N/A" : String(v));

export const pdbPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Min Available", "string", "The minimum number of pods that must be available."),
    col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
    col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
    AGE_COL,
  ],
  cells(obj, { now }) {
    const o = obj as PodDisruptionBudget;
    return [
      o.metadata.name ?? "",
      orNA(o.spec?.minAvailable),
      orNA(o.spec?.maxUnavailable),
      o.status?.disruptionsAllowed ?? 0,
      since(o.metadata.creationTimestamp, now),
    ];
  },
};
