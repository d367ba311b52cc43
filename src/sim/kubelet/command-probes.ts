// Exec probes of the containers whose command the simulation runs: the probe's command runs in
// the container (its filesystem, its environment) at each of the prober's ticks, as the kubelet's
// exec prober does (pkg/probe/exec: exit 0 passes, any other code fails with the command's
// output; past timeoutSeconds it fails as timed out). A probe tick is due every periodSeconds
// from the container's start (probes.ts): the command runs a millisecond of cluster time before
// it, so its answer is there when the prober asks. Another container's exec probe (a server the
// simulation does not run) is left to the Behavior, as before.

import type { ContainerRef } from "../context/behavior.js";
import type { SimContext } from "../context/context.js";
import { runHandler } from "../userland/process.js";
import { Collector, EMPTY_INPUT } from "../userland/stream.js";
import { containerProc } from "./container-proc.js";
import { probeOf } from "./probes.js";
import type { ProbeKind } from "./records.js";

export interface ProbeAnswer {
  ok: boolean;
  /** What the command printed (the Unhealthy event's text), or why it gave no answer. */
  output: string;
}

const KINDS: ProbeKind[] = ["startup", "readiness", "liveness"];
/** How long before a tick its command runs (cluster ms). */
const LEAD_MS = 1;

const keyOf = (ref: ContainerRef, kind: ProbeKind) =>
  `${ref.pod.metadata.uid}/${ref.container.name}/${ref.restartCount}/${kind}`;

export class ExecProbes {
  /** The latest answer per instance and probe, with the tick it answers. */
  private readonly answers = new Map<string, { tick: number; answer: ProbeAnswer }>();

  constructor(private readonly ctxOf: () => SimContext) {}

  /** Run this instance's exec probes ahead of each tick until `signal` ends the instance. */
  schedule(ref: ContainerRef, signal: AbortSignal): void {
    for (const kind of KINDS) {
      const probe = probeOf(ref.container, kind);
      const command = probe?.exec?.command;
      if (!probe || !command?.length) continue;
      const period = Math.max(1, Number(probe.periodSeconds ?? 10)) * 1000;
      const delay = Number(probe.initialDelaySeconds ?? 0) * 1000;
      const arm = (tick: number) => {
        if (signal.aborted) return;
        const clock = this.ctxOf().clock;
        const cancel = clock.after(Math.max(0, tick - LEAD_MS - clock.now()), () => {
          signal.removeEventListener("abort", cancel);
          if (signal.aborted) return;
          if (tick - ref.startedAt >= delay)
            void this.run(
              ref,
              kind,
              { exec: { command }, timeoutSeconds: probe.timeoutSeconds },
              tick,
              signal,
            );
          arm(tick + period);
        });
        signal.addEventListener("abort", cancel, { once: true });
      };
      arm(ref.startedAt + period);
    }
    signal.addEventListener("abort", () => {
      for (const kind of KINDS) this.answers.delete(keyOf(ref, kind));
    });
  }

  /** The answer of the command run for this tick, if it ran and finished. */
  answer(ref: ContainerRef, kind: ProbeKind, tick: number): ProbeAnswer | undefined {
    const a = this.answers.get(keyOf(ref, kind));
    return a && a.tick === tick ? a.answer : undefined;
  }

  private async run(
    ref: ContainerRef,
    kind: ProbeKind,
    probe: { exec: { command: unknown[] }; timeoutSeconds?: number },
    tick: number,
    instance: AbortSignal,
  ) {
    const ctx = this.ctxOf();
    const argv = probe.exec.command.map(String);
    const out = new Collector();
    const abort = new AbortController();
    const stop = () => abort.abort();
    instance.addEventListener("abort", stop, { once: true });
    let timedOut = false;
    const timeout = ctx.clock.after(Number(probe.timeoutSeconds ?? 1) * 1000, () => {
      timedOut = true;
      abort.abort();
    });
    const proc = containerProc(ctx, ref, { stdin: EMPTY_INPUT, stdout: out, stderr: out }, abort.signal);
    const fn = proc.resolve(argv[0]);
    let answer: ProbeAnswer;
    if (!fn)
      answer = {
        ok: false,
        output: `OCI runtime exec failed: exec failed: unable to start container process: exec: "${argv[0]}": executable file not found in $PATH: unknown`,
      };
    else {
      proc.name = argv[0].slice(argv[0].lastIndexOf("/") + 1);
      const code = await runHandler(fn, argv.slice(1), proc);
      answer = timedOut
        ? { ok: false, output: `command "${argv.join(" ")}" timed out` }
        : { ok: code === 0, output: out.text };
    }
    timeout();
    instance.removeEventListener("abort", stop);
    if (!instance.aborted) this.answers.set(keyOf(ref, kind), { tick, answer });
  }
}
