// Empty maps and lists a client writes do not come back: the API server decodes JSON into Go
// structs and encodes them with `json:",omitempty"`, which drops an empty map or slice (an
// empty struct stays, e.g. `resources: {}` or `emptyDir: {}`). Which fields are maps and which
// slices lack omitempty follows k8s.io/api (core/v1/types.go, apps/v1/types.go,
// rbac/v1/types.go, meta/v1/types.go).
import type { KObject, ResourceType } from "../../core/types.js";

/** Map-typed fields (map[string]string, ResourceList) that carry omitempty. */
const MAP_FIELDS = new Set([
  "labels",
  "annotations",
  "nodeSelector",
  "matchLabels",
  "limits",
  "requests",
  "data",
  "binaryData",
  "stringData",
  "capacity",
  "allocatable",
  "disruptedPods",
]);

/** Slices whose JSON tag has no omitempty: an empty one is written out as []. */
const KEPT_SLICES = new Set(["containers", "rules", "verbs", "nodeSelectorTerms"]);

// The Service's selector is a map; every other `selector` is a LabelSelector struct.
const isMapSelector = (kind: string, path: string) => kind === "Service" && path === "spec";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function walk(value: unknown, kind: string, path: string): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, kind, path);
    return;
  }
  if (!isObj(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v)) {
      if (v.length === 0 && !KEPT_SLICES.has(key)) delete value[key];
      else walk(v, kind, `${path}.${key}`);
    } else if (isObj(v)) {
      const isMap = MAP_FIELDS.has(key) || (key === "selector" && isMapSelector(kind, path));
      if (isMap && Object.keys(v).length === 0) delete value[key];
      else if (!isMap) walk(v, kind, path ? `${path}.${key}` : key);
    }
  }
}

/** Drop what Go's encoder would leave out. Built-in kinds only: custom resources keep their JSON. */
export function dropEmpty(rt: ResourceType, obj: KObject): void {
  if (rt.custom || rt.group === "apiextensions.k8s.io") return;
  walk(obj, obj.kind, "");
}
