// Remediation time as a real cluster would show it, whatever the embedded clock's speed.
//
// While a method acts, the embedded cluster may run faster than the wall clock (a built-in
// model's playbook at up to 60x). A real cluster would show: the model's own wall time, the
// playbook's own process time, and the cluster's time for what the playbook waited on. So each
// role the method is handed is wrapped to count its part:
//   model     wall time of each call (providers think in real time; built-ins take ~0)
//   probe     wall time of each command (API round trips: the same on any cluster)
//   execute   CPU time of ansible's process tree (its start-up and module runs, which a fast
//             clock would otherwise inflate 60-fold) + cluster time of the rest of its wall
//             time (when it waited on the cluster: rollout status, retries, pauses)
//   score     cluster time (settle and checks)
import { readFileSync } from "node:fs";
import type { Executor } from "../ansible/executor.js";
import type { ClusterTime } from "../cluster/time.js";
import type { Prober } from "../methods/types.js";
import type { Model } from "../models/types.js";
import type { Scorer } from "../verify/types.js";

/** Milliseconds per part, as a real cluster would show them. */
export interface MethodTimes {
  modelMs: number;
  probeMs: number;
  executeMs: number;
  /** Of executeMs: ansible's own CPU time. */
  executeCpuMs: number;
  scoreMs: number;
}

export const emptyTimes = (): MethodTimes => ({
  modelMs: 0,
  probeMs: 0,
  executeMs: 0,
  executeCpuMs: 0,
  scoreMs: 0,
});

const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux ABI Node supports

/** CPU ms of this process's waited-for children (and theirs): /proc/self/stat cutime + cstime. */
export function childrenCpuMs(): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // fields after the command name (which may hold spaces): state is field 3, cutime 16, cstime 17
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[13]) + Number(f[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

export function timedModel(m: Model, t: MethodTimes): Model {
  return {
    id: m.id,
    thinking: m.thinking,
    async generate(req) {
      const start = Date.now();
      try {
        return await m.generate(req);
      } finally {
        t.modelMs += Date.now() - start;
      }
    },
  };
}

export function timedProber(p: Prober, t: MethodTimes): Prober {
  return {
    async probe(command) {
      const start = Date.now();
      try {
        return await p.probe(command);
      } finally {
        t.probeMs += Date.now() - start;
      }
    },
  };
}

export function timedExecutor(e: Executor, time: ClusterTime, t: MethodTimes): Executor {
  return {
    async run(playbook, opts) {
      const wall0 = Date.now();
      const cluster0 = time.elapsed();
      const cpu0 = childrenCpuMs();
      try {
        return await e.run(playbook, opts);
      } finally {
        const wall = Date.now() - wall0;
        const cluster = time.elapsed() - cluster0;
        const cpu1 = childrenCpuMs();
        const cpu = cpu0 === undefined || cpu1 === undefined ? 0 : Math.min(wall, cpu1 - cpu0);
        // the wall time not spent computing was spent waiting, at the clock's mean speed meanwhile
        const waited = wall > 0 ? ((wall - cpu) * cluster) / wall : 0;
        t.executeCpuMs += cpu;
        t.executeMs += cpu + waited;
      }
    },
  };
}

/** The scorer as the method sees it: at the run's full speed (the runner's own waits), timed. */
export function timedScorer(s: Scorer, time: ClusterTime, methodSpeed: number, t: MethodTimes): Scorer {
  return {
    score: (signal) =>
      time.fast(methodSpeed, async () => {
        const start = time.elapsed();
        try {
          return await s.score(signal);
        } finally {
          t.scoreMs += time.elapsed() - start;
        }
      }),
  };
}

export const totalMs = (t: MethodTimes) => t.modelMs + t.probeMs + t.executeMs + t.scoreMs;
