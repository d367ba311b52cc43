// Connecting the CLI to a cluster: the embedded one (started in-process, the default) or a real
// one through a kubeconfig (--cluster kube). Everything after this goes through the kubeconfig.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeClient } from "../cluster/client.js";
import { loadKubeConfig } from "../cluster/connect.js";
import { ClusterTime } from "../cluster/time.js";
import { usageError } from "../errors.js";
import type { Connection } from "../runner/run.js";
import { startEmbeddedCluster } from "./embedded.js";

export interface ClusterFlags {
  cluster: "sim" | "kube";
  kubeconfig?: string;
  context?: string;
  speed: number;
  seed?: number | string;
}

export interface OpenCluster extends Connection {
  close(): Promise<void>;
}

export async function openCluster(f: ClusterFlags): Promise<OpenCluster> {
  if (f.cluster === "kube") {
    const { kc, path } = loadKubeConfig({ kubeconfig: f.kubeconfig, context: f.context });
    const client = new KubeClient(kc);
    const time = await ClusterTime.of(client); // also proves the cluster answers
    if (!f.context) return { client, time, kubeconfigPath: path, close: async () => {} };
    // a context other than the file's current one must reach ansible and kubectl too
    const dir = mkdtempSync(join(tmpdir(), "microremed-kube-"));
    const derived = join(dir, "kubeconfig");
    writeFileSync(derived, kc.exportConfig(), { mode: 0o600 });
    return { client, time, kubeconfigPath: derived, close: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (f.cluster !== "sim") throw usageError(`--cluster must be sim or kube, got "${f.cluster}"`, "use --cluster sim (embedded, default) or --cluster kube --kubeconfig FILE");
  const running = await startEmbeddedCluster({ speed: f.speed, seed: f.seed });
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
