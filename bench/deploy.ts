// The deploy benchmark: Train-Ticket with its backing services deployed the
// way `microremed deploy` does it (KubeClient over HTTP: namespace, apply of every object, wait
// until every Deployment and StatefulSet is Ready) on the embedded cluster at speed 60; then ten
// copies deployed at once on a cluster with enough nodes, with the process's memory.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simData } from "../src/cli/sim-data.js";
import { applyAll, ensureNamespace, waitHealthy } from "../src/envs/deploy.js";
import { type EnvSpec, loadEnv } from "../src/envs/env.js";
import { KubeClient } from "../src/kube/client.js";
import { loadKubeConfig } from "../src/kube/connect.js";
import type { Deployment } from "../src/kube/objects.js";
import { ClusterTime } from "../src/kube/time.js";
import { EmbeddedCluster, type EmbeddedClusterOptions, R } from "../src/sim/index.js";
import { line, mb } from "./stats.js";

const SPEED = 60;
const COPIES = 10;

async function withCluster<T>(
  opts: Omit<EmbeddedClusterOptions, "topology" | "stages">,
  fn: (client: KubeClient, time: ClusterTime, c: EmbeddedCluster) => Promise<T>,
): Promise<T> {
  const c = new EmbeddedCluster({ ...simData(), ...opts });
  await c.listen();
  const dir = mkdtempSync(join(tmpdir(), "microremed-bench-"));
  try {
    const { kc } = loadKubeConfig({ kubeconfig: c.writeKubeconfig(join(dir, "kubeconfig")) });
    const client = new KubeClient(kc);
    return await fn(client, await ClusterTime.of(client), c);
  } finally {
    await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** deployEnv, timed: the wall ms when every object was created, and when all were Ready. */
async function deploy(client: KubeClient, time: ClusterTime, env: EnvSpec, ns: string, t0: number) {
  await ensureNamespace(client, ns, env.name);
  await applyAll(client, env.manifests, ns);
  const applied = performance.now() - t0;
  await waitHealthy(client, time, ns, env.readyTimeoutSeconds);
  return { applied, ready: performance.now() - t0 };
}

export async function benchDeploy(): Promise<void> {
  const env = loadEnv("train-ticket");
  const pods = env.manifests.reduce(
    (n, o) =>
      n + (["Deployment", "StatefulSet"].includes(o.kind) ? ((o as Deployment).spec?.replicas ?? 1) : 0),
    0,
  );
  process.stdout.write(
    `Train-Ticket (${env.manifests.length} objects, ${pods} pods) on the embedded cluster at speed ${SPEED}\n`,
  );

  await withCluster({ speed: SPEED, seed: 1 }, async (client, time, c) => {
    const t0 = performance.now();
    const c0 = c.ctx.clock.now();
    const r = await deploy(client, time, env, "train-ticket", t0);
    line("one namespace: every object created (wall)", secs(r.applied));
    line("one namespace: all Ready (wall)", secs(r.ready), "< 10 s");
    line("  cluster time it took", secs(c.ctx.clock.now() - c0));
  });

  // 10 x 52 pods asking 100m-250m each: 8 nodes of 64 CPUs leave room for all of them
  const nodes = Array.from({ length: 8 }, (_, i) => ({
    name: `node-${i}`,
    cpu: "64",
    memory: "256Gi",
    pods: 250,
  }));
  await withCluster({ speed: SPEED, seed: 1, nodes }, async (client, time, c) => {
    global.gc?.();
    const before = process.memoryUsage();
    const t0 = performance.now();
    const c0 = c.ctx.clock.now();
    const rs = await Promise.all(
      Array.from({ length: COPIES }, (_, i) => deploy(client, time, env, `train-ticket-${i}`, t0)),
    );
    const after = process.memoryUsage();
    line(
      `${COPIES} namespaces at once: every object created (wall)`,
      secs(Math.max(...rs.map((r) => r.applied))),
    );
    line(`${COPIES} namespaces at once: all Ready (wall)`, secs(Math.max(...rs.map((r) => r.ready))));
    line("  cluster time it took", secs(c.ctx.clock.now() - c0));
    line("  pods", String(c.ctx.store.list(R("Pod")).length));
    line("  process RSS (before the deploy)", `${mb(after.rss)} (${mb(before.rss)})`);
    line("  heap used (before the deploy)", `${mb(after.heapUsed)} (${mb(before.heapUsed)})`);
  });
}
