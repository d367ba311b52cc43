// Shared by the exec and metrics tests: an embedded cluster on loopback with a kubeconfig for
// the real clients, and pods that the embedded kubelet has running.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import type { Clock, ManualClock } from "../../../src/sim/core/clock.js";
import type { Container, KObject, Pod } from "../../../src/sim/core/objects.js";

export interface TestCluster {
  c: EmbeddedCluster;
  kubeconfig: string;
  kubectl(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

/** `published`: images a user's own system brings (pulled besides the catalog's). */
export async function startCluster(
  speed = 20,
  clock?: Clock,
  published: string[] = [],
): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), "microremed-exec-"));
  const data = simData();
  const c = new EmbeddedCluster({
    ...data,
    publishedImages: [...data.publishedImages, ...published],
    speed,
    clock,
  });
  await c.listen();
  const kubeconfig = join(dir, "kubeconfig");
  c.writeKubeconfig(kubeconfig);
  return {
    c,
    kubeconfig,
    async kubectl(args, input) {
      const r = await execa("kubectl", ["--kubeconfig", kubeconfig, ...args], {
        reject: false,
        input,
        timeout: 30_000,
      });
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    async stop() {
      await c.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function ensureNamespace(c: EmbeddedCluster, ns: string): void {
  if (!c.ctx.registry.tryGet(R("Namespace"), undefined, ns))
    c.ctx.registry.create(R("Namespace"), undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: ns },
    });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pod whose containers all run and are ready. */
export function isRunning(p: Pod | undefined): boolean {
  const st = p?.status;
  if (st?.phase !== "Running") return false;
  return (p!.spec.containers ?? []).every((c) => {
    const s = (st.containerStatuses ?? []).find((x) => x.name === c.name);
    return !!s?.state?.running && s.ready;
  });
}

/**
 * Wait until a condition on the cluster holds, letting the scheduler and kubelet work: a manual
 * clock is moved along (half a second of cluster time per step), a wall clock just runs.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false,
  clock?: ManualClock,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    if (clock) clock.advance(500);
    await sleep(clock ? 5 : 25);
  }
}

/** Create a pod and wait until the kubelet runs it. */
export async function runningPod(c: EmbeddedCluster, pod: KObject, clock?: ManualClock): Promise<Pod> {
  const ns = pod.metadata.namespace!;
  const name = pod.metadata.name!;
  ensureNamespace(c, ns);
  c.ctx.registry.create(R("Pod"), ns, pod);
  const get = () => c.ctx.registry.tryGet(R("Pod"), ns, name) as Pod | undefined;
  try {
    return await waitFor(`pod ${ns}/${name} to run`, () => (isRunning(get()) ? get() : undefined), clock);
  } catch (e) {
    throw new Error(`${(e as Error).message}: ${JSON.stringify(get()?.status)}`);
  }
}

export function podManifest(
  ns: string,
  name: string,
  containers: Container[],
  extra: Record<string, unknown> = {},
): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: { containers, ...extra },
  };
}
