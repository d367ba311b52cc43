// Remediation time as a real cluster would show it, whatever the embedded clock's speed.
//
// While a method acts, the embedded cluster may run faster than the wall clock (a built-in
// model's playbook at up to 60x). A real cluster would show: the model's own wall time, the
// playbook's own process time, and the cluster's time for what the playbook waited on. So each
// role the method is handed is wrapped to count its part:
//   model     wall time of each call (providers think in real time; built-ins take ~0)
//   probe     wall time of each command (API round trips: the same on any cluster)
//   execute   cluster time: the clock runs at the method's speed (1) while ansible works, and
//             fast only while it waits on the cluster (a watch open: rollout status, kubectl
//             wait), so its start-up counts as the seconds it takes, not as fast minutes
// The remediation time is their sum: what a real cluster would show between the diagnosis
// report and a repaired system. The Verification agent's and the runner's settle and
// checks are the harness's measurements, recorded apart (scoreMs, finalMs), not counted in it.
import type { Executor } from "../ansible/executor.js";
import type { Clock } from "../kube/time.js";
import type { Model } from "../llm/types.js";
import type { AgentLauncher, Prober } from "../methods/types.js";
import type { MethodTimes } from "../runlog/records.js";
import type { Scorer } from "../verify/types.js";

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
    async generate(req) {
      const start = Date.now();
      try {
        const res = await m.generate(req);
        // the turn keeps when it was asked for and what it cost: the case's trajectory (ATIF) reads them
        return { ...res, message: { ...res.message, at: new Date(start).toISOString(), usage: res.usage } };
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

/**
 * Time a process run in cluster time, while telling the clock when it waits on the cluster: the
 * clock runs at the method's speed (1: as a real cluster) while the process works and fast while
 * it waits, so its cluster time is what a real cluster would show whatever the fast speed.
 */
async function process<R extends { cpuMs?: number }>(
  time: Clock,
  t: MethodTimes,
  run: (onWaiting: (waiting: boolean) => void) => Promise<R>,
) {
  const cluster0 = await time.clusterNow();
  let waiting = false;
  const onWaiting = (on: boolean) => {
    if (on === waiting) return;
    waiting = on;
    void time.waiting(on).catch(() => undefined);
  };
  try {
    const r = await run(onWaiting);
    t.executeCpuMs += r.cpuMs ?? 0;
    return r;
  } finally {
    onWaiting(false);
    t.executeMs += (await time.clusterNow()) - cluster0;
  }
}

export function timedExecutor(e: Executor, time: Clock, t: MethodTimes): Executor {
  return {
    run: (playbook, opts) => process(time, t, (onWaiting) => e.run(playbook, { ...opts, onWaiting })),
  };
}

/** An external agent's run counts as execution, as a playbook's does. */
export function timedLauncher(l: AgentLauncher, time: Clock, t: MethodTimes): AgentLauncher {
  return {
    launch: (command, input, signal, _onWaiting, extras) =>
      process(time, t, (onWaiting) => l.launch(command, input, signal, onWaiting, extras)),
  };
}

/** The scorer as the method sees it: at the run's full speed (the runner's own waits), timed. */
export function timedScorer(s: Scorer, time: Clock, methodSpeed: number, t: MethodTimes): Scorer {
  return {
    score: (signal) =>
      time.fast(methodSpeed, async () => {
        const start = await time.clusterNow();
        try {
          return await s.score(signal);
        } finally {
          t.scoreMs += (await time.clusterNow()) - start;
        }
      }),
  };
}
