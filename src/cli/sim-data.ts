// What the embedded cluster is built with: the topologies of the systems it models (from env
// folders, the package's or a user's) and the simulator's stage files (shipped in the package
// under src/sim/stages, loaded by the simulator's builtinStages). The cluster reads no env
// folder by itself: env folders are the benchmark's, so this is where they are loaded.
import { envDir, listEnvs, loadEnv } from "../envs/env.js";
import { builtinStages, type StageDocs, type TopologyInput } from "../sim/index.js";

const loaded = new Map<string, { topology: TopologyInput; images: string[] }>();

/** Every container image a manifest names (its pod templates' and pods' containers). */
function imagesOf(docs: unknown[]): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        if (k === "image" && typeof x === "string") found.add(x);
        else walk(x);
      }
  };
  walk(docs);
  return [...found];
}

/**
 * Topologies of the given envs (names or folders; default: every built-in env), the stages, and
 * the images of the envs' manifests, which the embedded cluster counts as published (a user's
 * system with its own images runs; a made-up image does not pull).
 */
export function simData(envs?: string[]): {
  topology: TopologyInput[];
  stages: StageDocs;
  publishedImages: string[];
} {
  const data = (envs ?? listEnvs()).map((e) => {
    const dir = envDir(e);
    let d = loaded.get(dir);
    if (!d) {
      const env = loadEnv(e);
      d = { topology: env.topology, images: imagesOf([...env.manifests, ...env.sourceConfig]) };
      loaded.set(dir, d);
    }
    return d;
  });
  return {
    topology: data.map((d) => d.topology),
    stages: builtinStages(),
    publishedImages: [...new Set(data.flatMap((d) => d.images))],
  };
}
