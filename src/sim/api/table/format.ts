// Small renderers shared by the printers: labels, selectors, container lists, access modes.
import type { PodSpec } from "../../core/objects.js";

/** labels.FormatLabels: "k=v,k2=v2" sorted by key, "<none>" when empty. */
export function formatLabels(m: Record<string, string> | undefined | null): string {
  const keys = Object.keys(m ?? {}).sort();
  if (keys.length === 0) return "<none>";
  return keys.map((k) => `${k}=${(m as Record<string, string>)[k]}`).join(",");
}

interface Requirement {
  key: string;
  text: string;
}

/** A label selector as an object states it: checked field by field below. */
interface OpenSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key?: unknown; operator?: string; values?: string[] }[];
}

/** metav1.LabelSelectorAsSelector(sel).String(): "" for a nil or empty selector. */
export function labelSelectorString(selector: unknown): string {
  if (!selector || typeof selector !== "object") return "";
  const sel: OpenSelector = selector;
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries((sel.matchLabels ?? {}) as Record<string, string>)) {
    reqs.push({ key: k, text: `${k}=${v}` });
  }
  for (const e of sel.matchExpressions ?? []) {
    const values = [...((e.values ?? []) as string[])].sort().join(",");
    const key = String(e.key ?? "");
    const text =
      e.operator === "In"
        ? `${key} in (${values})`
        : e.operator === "NotIn"
          ? `${key} notin (${values})`
          : e.operator === "DoesNotExist"
            ? `!${key}`
            : key;
    reqs.push({ key, text });
  }
  // The selector keeps its requirements sorted by key.
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(",");
}

/** metav1.FormatLabelSelector: like labelSelectorString but "<none>" when empty. */
export function formatLabelSelector(sel: unknown): string {
  return labelSelectorString(sel) || "<none>";
}

/** layoutContainerCells: names and images of a pod template's containers, comma-joined. */
export function containerCells(podSpec: PodSpec | undefined): [string, string] {
  const cs = podSpec?.containers ?? [];
  return [cs.map((c) => c.name ?? "").join(","), cs.map((c) => c.image ?? "").join(",")];
}

/** helper.GetAccessModesAsString: in a fixed order, whatever order the object lists them in. */
export function accessModes(modes: string[] | undefined): string {
  const have = new Set(modes ?? []);
  const out: string[] = [];
  if (have.has("ReadWriteOnce")) out.push("RWO");
  if (have.has("ReadOnlyMany")) out.push("ROX");
  if (have.has("ReadWriteMany")) out.push("RWX");
  if (have.has("ReadWriteOncePod")) out.push("RWOP");
  return out.join(",");
}

/** net.JoinHostPort: IPv6 addresses get brackets. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** int64 cells: absent counters print as 0, as the Go zero value would. */
export function int(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : 0;
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}
