// A pinned-clock cluster with one of the systems deployed from envs/<system>/manifests.yaml, for
// the topology and tools tests: objects are created through the registry as kubectl apply would,
// the clock is moved by hand and the controller queues drained after every step.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { simData } from "../../../src/cli/sim-data.js";
import { R } from "../../../src/sim/api/resources.js";
import { EmbeddedCluster } from "../../../src/sim/cluster/cluster.js";
import type { Fault } from "../../../src/sim/context/faults.js";
import { ManualClock } from "../../../src/sim/core/clock.js";
import { podReady } from "../../../src/sim/core/meta.js";
import type { Container, KObject, Pod } from "../../../src/sim/core/objects.js";
import { Pipe } from "../../../src/sim/userland/stream.js";
import { packageRoot } from "../../../src/util/paths.js";

export function manifests(system: string): KObject[] {
  const text = readFileSync(join(packageRoot(), "envs", system, "manifests.yaml"), "utf8");
  return parseAllDocuments(text)
    .map((d) => d.toJSON() as KObject | null)
    .filter((o): o is KObject => !!o && typeof o === "object");
}

export interface Sim {
  cluster: EmbeddedCluster;
  clock: ManualClock;
  ns: string;
  /** Move cluster time in steps, draining the queues after each. */
  advance(ms: number, step?: number): void;
  pods(app?: string): Pod[];
  pod(app: string): Pod;
  logs(pod: Pod, container?: string): string[];
  /** Write a fault record for a pod, as the chaos controllers would. */
  inject(pod: KObject, fault: Fault, source?: string): void;
  /** Create a bare pod in the namespace and run the clock until it is Ready. */
  addPod(name: string, containers: Container[], labels?: Record<string, string>): Pod;
  /** Run a command in a container, moving the clock until it ends. */
  /** Run a command, the clock moving `step` ms (10 by default) each turn of the event loop it takes. */
  exec(
    pod: KObject,
    argv: string[],
    container?: string,
    step?: number,
  ): Promise<{ code: number; out: string; err: string }>;
}

export function deploy(system: string, ns = system, opts: { create?: (o: KObject) => KObject } = {}): Sim {
  const clock = new ManualClock();
  const cluster = new EmbeddedCluster({ ...simData(), clock, autoDrain: false });
  const { registry, runtime } = cluster.ctx;
  registry.create(R("Namespace"), undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  for (const o of manifests(system)) registry.create(R(o.kind), ns, opts.create ? opts.create(o) : o);
  runtime.drain();
  const sim: Sim = {
    cluster,
    clock,
    ns,
    advance(ms, step = 500) {
      for (let t = 0; t < ms; t += step) {
        clock.advance(Math.min(step, ms - t));
        runtime.drain();
      }
    },
    pods: (app) =>
      registry
        .list(R("Pod"), ns)
        .map((p) => p as Pod)
        .filter((p) => !p.metadata.deletionTimestamp && (!app || p.metadata.labels?.app === app)),
    pod(app) {
      const p = sim.pods(app)[0];
      if (!p) throw new Error(`no pod of ${app}`);
      return registry.get(R("Pod"), ns, p.metadata.name!) as Pod;
    },
    logs(pod, container) {
      const c = container ?? pod.spec.containers[0].name;
      return cluster.ctx.logs.logs({ pod, container: c }).lines;
    },
    inject(pod, fault, source = `test/${ns}/${fault.kind}`) {
      cluster.ctx.faults.add({ source, podUid: pod.metadata.uid!, fault, since: clock.now() });
      runtime.drain();
    },
    addPod(name, containers, labels = { app: name }) {
      registry.create(R("Pod"), ns, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, labels },
        spec: { containers },
      });
      for (let i = 0; i < 60 && !podReady(registry.get(R("Pod"), ns, name)); i++) sim.advance(1000);
      return registry.get(R("Pod"), ns, name) as Pod;
    },
    async exec(pod, argv, container, step = 10) {
      let out = "";
      let err = "";
      const stdin = new Pipe();
      stdin.end();
      const live = registry.get(R("Pod"), ns, pod.metadata.name!) as Pod;
      let done = false;
      const run = cluster.exec
        .exec(
          { pod: live, container: container ?? live.spec.containers[0].name, command: argv, tty: false },
          {
            stdout: (d) => {
              out += String(d);
            },
            stderr: (d) => {
              err += String(d);
            },
            aborted: new Promise<void>(() => {}),
          },
        )
        .finally(() => {
          done = true;
        });
      for (let i = 0; i < 100_000 && !done; i++) {
        await new Promise((r) => setImmediate(r));
        if (!done) {
          clock.advance(step);
          runtime.drain();
        }
      }
      return { code: await run, out, err };
    },
  };
  return sim;
}

/** Every pod Running and Ready. */
export const allReady = (sim: Sim) => sim.pods().length > 0 && sim.pods().every((p) => podReady(p));
