// What the embedded cluster is built with: the topologies of the systems it models (from env
// folders, the package's or a user's) and the simulator's stage files (shipped in the package
// under src/sim/stages, loaded by the simulator's builtinStages). The cluster reads no env
// folder by itself: env folders are the benchmark's, so this is where they are loaded.
import { envDir, listEnvs, loadEnv } from "../envs/env.js";
import { builtinStages, type StageDocs, type TopologyInput } from "../sim/index.js";

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
