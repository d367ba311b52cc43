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
// The remediation time is their sum: what the issue of a real cluster would show between the
// diagnosis report and a repaired system. The Verification agent's and the runner's settle and
// checks are the harness's measurements, recorded apart (scoreMs, finalMs), not counted in it.
import type { Executor } from "../ansible/executor.js";
import type { ClusterTime } from "../cluster/time.js";
import type { AgentLauncher, Prober } from "../methods/types.js";
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

/** Time a process run: its CPU time as is, the rest of its wall time as cluster time waited. */
async function process<R extends { cpuMs?: number }>(
  time: ClusterTime,
  t: MethodTimes,
  run: () => Promise<R>,
) {
  const wall0 = Date.now();
  const cluster0 = time.elapsed();
  const r = await run();
  const wall = Date.now() - wall0;
  const cluster = time.elapsed() - cluster0;
  // without a CPU figure, all of its time counts as waiting on the cluster
  const cpu = Math.min(wall, r.cpuMs ?? 0);
  // the wall time not spent computing was spent waiting, at the clock's mean speed meanwhile
  const waited = wall > 0 ? ((wall - cpu) * cluster) / wall : 0;
  t.executeCpuMs += cpu;
  t.executeMs += cpu + waited;
  return r;
}

export function timedExecutor(e: Executor, time: ClusterTime, t: MethodTimes): Executor {
  return { run: (playbook, opts) => process(time, t, () => e.run(playbook, opts)) };
}

/** An external agent's run counts as execution, as a playbook's does. */
export function timedLauncher(l: AgentLauncher, time: ClusterTime, t: MethodTimes): AgentLauncher {
  return { launch: (command, input, signal) => process(time, t, () => l.launch(command, input, signal)) };
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

export const remediationMs = (t: MethodTimes) => t.modelMs + t.probeMs + t.executeMs;
