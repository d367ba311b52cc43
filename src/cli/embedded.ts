// Starting the embedded cluster in-process: with sim-data.ts, the only place outside src/sim that
// imports it, and only through its public face (src/sim/index.ts).
import { get } from "node:https";
import { OWNERS_NAMESPACE } from "../envs/owned.js";
import { MicroRemedError } from "../errors.js";
import { EmbeddedCluster } from "../sim/index.js";
import { simData } from "./sim-data.js";

export interface EmbeddedOptions {
  port?: number;
  speed?: number;
  seed?: number | string;
  /** The systems to model: env names or folders (default: the built-in envs). */
  envs?: string[];
  /** Outside addresses: "internet" or "none" (air-gapped); the embedded cluster defaults it to "internet". */
  egress?: "internet" | "none";
  /** Cluster ms the clock starts behind the wall clock (default: enough for half an hour at its speed). */
  lead?: number;
}

export interface RunningCluster {
  url: string;
  speed: number;
  writeKubeconfig(path: string): string;
  stop(): Promise<void>;
}

export async function startEmbeddedCluster(opts: EmbeddedOptions = {}): Promise<RunningCluster> {
  const cluster = new EmbeddedCluster({
    ...simData(opts.envs),
    speed: opts.speed ?? 1,
    seed: opts.seed ?? 42,
    egress: opts.egress,
    lead: opts.lead,
    // the systems MicroRemed deploys look as if restored from a cluster that ran for days
    livedIn: OWNERS_NAMESPACE,
  });
  try {
    await cluster.listen(opts.port ?? 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new MicroRemedError(
        "E_PORT_IN_USE",
        `port ${opts.port} is already in use`,
        "pick another --port or leave it out for a free one",
        { cause: e },
      );
    throw e;
  }
  // Answering, not only listening: the line printed afterwards is a promise that kubectl works.
  // over HTTPS, trusting the cluster's own CA as the kubeconfig it writes does
  const status = await new Promise<number>((resolve, reject) => {
    get(`${cluster.url}/version`, { ca: cluster.auth.pki.ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on("error", reject);
  });
  if (status !== 200)
    throw new MicroRemedError("E_CLUSTER", `the embedded cluster did not answer /version (HTTP ${status})`);
  return {
    url: cluster.url,
    speed: opts.speed ?? 1,
    writeKubeconfig: (p) => cluster.writeKubeconfig(p),
    stop: () => cluster.stop(),
  };
}
