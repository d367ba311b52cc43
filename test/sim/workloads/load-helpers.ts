// Shared by the load tests: a system deployed on a pinned clock (helpers/topology.ts) and served
// over HTTP, so the real kubectl reads what a user would (top, logs, get pods) while the test
// moves cluster time by hand.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { R } from "../../../src/sim/api/resources.js";
import type { Deployment, Pod } from "../../../src/sim/core/objects.js";
import { trafficOf } from "../../../src/sim/workloads/topology/traffic.js";
import { allReady, deploy, type Sim } from "../helpers/topology.js";

export interface LoadSim extends Sim {
  kubectl(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** Set (or, with undefined, remove) a variable of a Deployment's main container: a rollout. */
  setEnv(deploy: string, name: string, value: string | undefined): void;
  scale(deploy: string, replicas: number): void;
  /** The traffic model's view of a service now. */
  svc(key: string): { rps: number; capacity: number; queueMs: number; latencyMs: number; failRate: number };
  stop(): Promise<void>;
}

export async function loadSim(system: string, ns: string): Promise<LoadSim> {
  const sim = deploy(system, ns);
  for (let i = 0; i < 240 && !allReady(sim); i++) sim.advance(1000);
  if (!allReady(sim)) throw new Error(`${system} did not become ready`);
  await sim.cluster.listen();
  const dir = mkdtempSync(join(tmpdir(), "microremed-load-"));
  const kubeconfig = sim.cluster.writeKubeconfig(join(dir, "kubeconfig"));
  const { registry } = sim.cluster.ctx;
  const dep = (name: string) => registry.get(R("Deployment"), ns, name) as Deployment;
  return {
    ...sim,
    async kubectl(args) {
      const r = await execa("kubectl", ["--kubeconfig", kubeconfig, "-n", ns, ...args], {
        reject: false,
        timeout: 60_000,
      });
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    setEnv(name, v, value) {
      const d = structuredClone(dep(name));
      const c = d.spec!.template.spec!.containers[0];
      const env = (c.env ?? []).filter((e) => e.name !== v);
      c.env = value === undefined ? env : [...env, { name: v, value }];
      registry.update(R("Deployment"), ns, d.metadata.name!, d);
      sim.cluster.ctx.runtime.drain();
    },
    scale(name, replicas) {
      const d = structuredClone(dep(name));
      d.spec!.replicas = replicas;
      registry.update(R("Deployment"), ns, d.metadata.name!, d);
      sim.cluster.ctx.runtime.drain();
    },
    svc(key) {
      const s = trafficOf(sim.cluster.ctx).state(ns).services.get(key)!;
      return {
        rps: s.rps,
        capacity: s.capacity,
        queueMs: s.queueMs,
        latencyMs: s.latencyMs,
        failRate: s.failRate,
      };
    },
    async stop() {
      await sim.cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Ready pods of an app that are not being deleted. */
export const readyPods = (sim: Sim, app: string): Pod[] =>
  sim.pods(app).filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
