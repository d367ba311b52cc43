// A system as the runner and the checks use it, once its folder has been read and checked
// (env.ts loads it; consistency.ts checks that its files agree).
import type { KObj } from "../kube/objects.js";
import type { UserCheck } from "./schema-env.js";
import type { TopologyDoc } from "./schema-topology.js";

export interface EnvSpec {
  name: string;
  dir: string;
  defaultNamespace: string;
  readyTimeoutSeconds: number;
  /** Per failure id, the Deployments a case may target. */
  faultTargets: Record<string, string[]>;
  /** Per failure id and target, the values of the failure template's placeholders. */
  targetParams: Record<string, Record<string, Record<string, unknown>>>;
  /** Requests along the entry path, for the expert tier's user-facing check. */
  userCheck?: UserCheck;
  pingTarget: { apps: string[] };
  /** Everything to deploy, in order. */
  manifests: KObj[];
  /** The original manifests of the fault targets, for restore. */
  sourceConfig: KObj[];
  /** What the embedded cluster models per workload (topology.yaml). */
  topology: TopologyDoc;
}
