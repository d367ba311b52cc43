// An embedded cluster with named nodes, served with a kubeconfig, for tests that drain, cordon
// and taint nodes (the shared helper starts one node).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { simData } from "../../src/cli/sim-data.js";
import { EmbeddedCluster } from "../../src/sim/cluster.js";
import type { TestCluster } from "../helpers/cluster.js";

export type { TestCluster };

export async function startNodesCluster(names: string[], speed = 30): Promise<TestCluster> {
  const cluster = new EmbeddedCluster({
    ...simData(),
    speed,
    seed: 7,
    nodes: names.map((name) => ({ name, cpu: "8", memory: "32Gi", pods: 110 })),
  });
  await cluster.listen();
  const dir = mkdtempSync(join(tmpdir(), "mr-nodes-"));
  const kubeconfig = cluster.writeKubeconfig(join(dir, "kubeconfig"));
  return {
    cluster,
    kubeconfig,
    dir,
    async kubectl(args, opts = {}) {
      const r = await execa("kubectl", args, {
        env: { KUBECONFIG: kubeconfig },
        input: opts.input,
        reject: false,
        timeout: 120_000,
      });
      if (opts.reject !== false && r.exitCode !== 0)
        throw new Error(`kubectl ${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
      return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
    },
    file(name, text) {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
    stop: () => cluster.stop(),
  };
}
