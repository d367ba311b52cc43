// What the embedded cluster is built with: the topologies of the systems it models (from env
// folders, the package's or a user's) and the simulator's stage files (shipped in the package
// under src/sim/stages). The cluster reads no folder by itself; this is where they are loaded.
import { dirname } from "node:path";
import { envDir, listEnvs, loadEnv } from "../envs/env.js";
import type { TopologyInput } from "../sim/context/catalog.js";
import { loadStages, type StageDocs, stagesPath } from "../sim/stages/load.js";

let stages: StageDocs | undefined;

/** The package's stage files (loaded once per process). */
export function builtinStages(): StageDocs {
  stages ??= loadStages(dirname(stagesPath("pod.yaml")));
  return stages;
}

const topologies = new Map<string, TopologyInput>();

/** Topologies of the given envs (names or folders; default: every built-in env) and the stages. */
export function simData(envs?: string[]): { topology: TopologyInput[]; stages: StageDocs } {
  const topology = (envs ?? listEnvs()).map((e) => {
    const dir = envDir(e);
    let t = topologies.get(dir);
    if (!t) {
      t = loadEnv(e).topology;
      topologies.set(dir, t);
    }
    return t;
  });
  return { topology, stages: builtinStages() };
}
