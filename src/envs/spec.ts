// A system as the runner and the checks use it, once its folder has been read and checked
// (env.ts loads it; consistency.ts checks that its files agree).
import type { KObj } from "../cluster/objects.js";
import type { TopologyDoc } from "./schema-topology.js";

export interface EnvSpec {
  name: string;
  dir: string;
  defaultNamespace: string;
  readyTimeoutSeconds: number;
  faultTargets: Record<string, string[]>;
  pingTarget: { apps: string[] };
  /** Everything to deploy, in order. */
  manifests: KObj[];
  /** The original manifests of the fault targets, for restore. */
  sourceConfig: KObj[];
  /** What the embedded cluster models per workload (topology.yaml). */
  topology: TopologyDoc;
}
