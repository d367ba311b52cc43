// Connecting the CLI to a cluster: the embedded one (started in-process, the default) or a real
// one through a kubeconfig (--cluster kube). Everything after this goes through the kubeconfig.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCluster } from "../runner/options.js";
import type { Connection } from "../runner/run.js";

export interface ClusterFlags {
  cluster: "sim" | "kube";
  kubeconfig?: string;
  context?: string;
  speed: number;
  seed?: number | string;
  /** The system the embedded cluster models (a built-in name or a folder); default: the built-in ones. */
  env?: string;
  egress?: "internet" | "none";
  /** Cluster ms the embedded cluster starts behind the wall clock (default: its speed's). */
  lead?: number;
}

export interface OpenCluster extends Connection {
  close(): Promise<void>;
}

export async function openCluster(f: ClusterFlags): Promise<OpenCluster> {
  // loaded here, not at start-up: the Kubernetes client takes a while to load, and `--help` or a
  // bad flag should answer at once
  const [{ KubeClient }, { loadKubeConfig }, { ClusterTime }, { startEmbeddedCluster }] = await Promise.all([
    import("../kube/client.js"),
    import("../kube/connect.js"),
    import("../kube/time.js"),
    import("./embedded.js"),
  ]);
  if (f.cluster === "kube") {
    const { kc, path } = loadKubeConfig({ kubeconfig: f.kubeconfig, context: f.context });
    const client = new KubeClient(kc);
    const time = await ClusterTime.of(client); // also proves the cluster answers
    if (!f.context) return { client, time, kubeconfigPath: path, close: async () => {} };
    // a context other than the file's current one must reach ansible and kubectl too
    const dir = mkdtempSync(join(tmpdir(), "microremed-kube-"));
    const derived = join(dir, "kubeconfig");
    writeFileSync(derived, kc.exportConfig(), { mode: 0o600 });
    return {
      client,
      time,
      kubeconfigPath: derived,
      close: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  parseCluster(f.cluster); // the single-step commands take --cluster as commander gives it
  const running = await startEmbeddedCluster({
    speed: f.speed,
    lead: f.lead,
    seed: f.seed,
    egress: f.egress,
    envs: f.env ? [f.env] : undefined,
  });
  const dir = mkdtempSync(join(tmpdir(), "microremed-sim-"));
  const path = running.writeKubeconfig(join(dir, "kubeconfig"));
  const { kc } = loadKubeConfig({ kubeconfig: path });
  const client = new KubeClient(kc);
  return {
    client,
    time: await ClusterTime.of(client),
    kubeconfigPath: path,
    close: async () => {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
