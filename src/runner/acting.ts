// What acts as the case's identity, set up alike for a run's case (runner/solve.ts) and for
// `microremed mcp` (cli/mcp-serve.ts): the probe within the method's limits, the agent
// launcher's options and the executor, each holding the identity's kubeconfig and nothing of
// the harness's.
import type { Executor } from "../ansible/executor.js";
import type { Prober } from "../methods/types.js";
import { createProbe, type ProbeLimits, probeLimits } from "../probe/index.js";
import type { SandboxMode } from "../sandbox/support.js";

export interface ActingOptions {
  /** The identity's kubeconfig. */
  kubeconfig: string;
  namespace: string;
  sandbox: SandboxMode;
  caseDir: string;
  /** Wall ms a playbook, a kubectl write or an agent may run. */
  timeoutMs: number;
  /** The method's probe limits; no probe without them. */
  probeLimits?: Partial<ProbeLimits>;
}

export interface Acting {
  prober?: Prober;
  /** What the agent launcher (runner/launcher.ts SandboxLauncher) is made with. */
  launcher: { mode: SandboxMode; kubeconfig: string; caseDir: string; timeoutMs: number };
  /** The executor as the identity uses it: each playbook runs with the identity's kubeconfig. */
  executor(e: Executor): Executor;
}

export function actingAs(o: ActingOptions): Acting {
  const limits = o.probeLimits && probeLimits(o.probeLimits);
  return {
    prober: limits && {
      probe: createProbe({
        kubeconfig: o.kubeconfig,
        namespace: o.namespace,
        timeoutMs: limits.timeoutSeconds * 1000,
        maxOutput: limits.maxOutput,
        maxCommands: limits.maxCommands,
        sandbox: o.sandbox,
      }),
    },
    launcher: { mode: o.sandbox, kubeconfig: o.kubeconfig, caseDir: o.caseDir, timeoutMs: o.timeoutMs },
    executor: (e) => ({ run: (playbook, opts) => e.run(playbook, { ...opts, kubeconfig: o.kubeconfig }) }),
  };
}
