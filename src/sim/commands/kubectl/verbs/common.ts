// What the verbs that write share: reading an object, sending a patch as a field manager
// (kubectl names its writes kubectl-<verb>: staging/src/k8s.io/kubectl/pkg/cmd/*), the pod
// template inside a workload, and the --dry-run flag.
import type { ResourceType } from "../../../core/types.js";
import type { Run } from "../context.js";
import { UsageError } from "../flags.js";
import { pathOf } from "../resources.js";

export type J = Record<string, unknown>;
export const isObj = (v: unknown): v is J => !!v && typeof v === "object" && !Array.isArray(v);
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export const CONTENT = {
  strategic: "application/strategic-merge-patch+json",
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
} as const;

export type DryRun = "none" | "client" | "server";

export function dryRunOf(r: Run): DryRun {
  const v = r.f.str("dry-run");
  if (v === undefined || v === "none" || v === "false") return "none";
  if (v === "client" || v === "true" || v === "") return "client";
  if (v === "server") return "server";
  throw new UsageError(`Invalid dry-run value (${v}). Must be "none", "server", or "client".`);
}

export const DRY_RUN_FLAG = { "dry-run": { type: "string" as const } };

export function query(manager: string, dry: DryRun): string {
  const q = new URLSearchParams();
  if (dry === "server") q.set("dryRun", "All");
  q.set("fieldManager", manager);
  return `?${q}`;
}

export async function fetchObject(r: Run, rt: ResourceType, ns: string, name: string): Promise<J> {
  return r.client().get(pathOf(rt, ns, name));
}

export async function sendPatch(
  r: Run,
  rt: ResourceType,
  ns: string,
  name: string,
  type: keyof typeof CONTENT,
  body: unknown,
  manager: string,
  opts: { dry?: DryRun; sub?: string } = {},
): Promise<J> {
  const a = await r
    .client()
    .request("PATCH", `${pathOf(rt, ns, name, opts.sub)}${query(manager, opts.dry ?? "none")}`, {
      body,
      contentType: CONTENT[type],
    });
  return a.json();
}

/** The pod spec a workload's template holds (the object itself for a Pod); undefined if none. */
export function podSpecOf(o: J): J | undefined {
  const spec = o.spec as J | undefined;
  switch (o.kind) {
    case "Pod":
      return spec;
    case "CronJob":
      return (((spec?.jobTemplate as J)?.spec as J)?.template as J)?.spec as J | undefined;
    case "Deployment":
    case "StatefulSet":
    case "DaemonSet":
    case "ReplicaSet":
    case "Job":
    case "ReplicationController":
      return (spec?.template as J)?.spec as J | undefined;
    default:
      return undefined;
  }
}

/** The template's metadata (for rollout restart's annotation). */
export function templateOf(o: J): J | undefined {
  const spec = o.spec as J | undefined;
  return o.kind === "CronJob"
    ? (((spec?.jobTemplate as J)?.spec as J)?.template as J)
    : (spec?.template as J);
}
