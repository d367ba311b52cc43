// Test helpers: an embedded cluster served over HTTP with a kubeconfig, and real kubectl on it.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { simData } from "../../src/cli/sim-data.js";
import { EmbeddedCluster, type EmbeddedClusterOptions } from "../../src/sim/index.js";

export interface TestCluster {
  cluster: EmbeddedCluster;
  kubeconfig: string;
  dir: string;
  kubectl: (
    args: string[],
    opts?: { input?: string; reject?: boolean },
  ) => Promise<{ stdout: string; stderr: string; exitCode: number }>;
  file: (name: string, text: string) => string;
  stop: () => Promise<void>;
}

/** `nodes`: named nodes instead of the one default node (tests that drain, cordon, taint). */
export async function startTestCluster(
  speed = 30,
  seed = 42,
  nodes?: EmbeddedClusterOptions["nodes"],
): Promise<TestCluster> {
  const cluster = new EmbeddedCluster({ ...simData(), speed, seed, ...(nodes ? { nodes } : {}) });
  await cluster.listen();
  const dir = mkdtempSync(join(tmpdir(), "mr-test-"));
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
