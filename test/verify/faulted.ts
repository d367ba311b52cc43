// Shared by the tests of the expert tier's own checks on the embedded cluster (calls, throttle,
// store): `microremed sim` in the background, a system deployed and a fault injected into its
// namespace with the CLI (`deploy`, `inject`: the target's values from env.yaml, as a case gets
// them), the fix made with real kubectl, and the fault's check (verifierOf, as the runner makes
// it) read in confirm or final mode through the sim's kubeconfig.
import { KubeConfig } from "@kubernetes/client-node";
import { type EnvSpec, loadEnv } from "../../src/envs/env.js";
import { failure } from "../../src/faults/catalog.js";
import { KubeClient } from "../../src/kube/client.js";
import { ClusterTime } from "../../src/kube/time.js";
import { targetVars } from "../../src/runner/experiments.js";
import { verifierOf } from "../../src/verify/registry.js";
import { checkOf, DEFAULT_TIMEOUTS, type Verdict, type VerifyTimeouts } from "../../src/verify/types.js";
import { cli, type SimCluster } from "../cli/cli-helpers.js";

export interface Faulted {
  env: EnvSpec;
  namespace: string;
  /** kubectl in the namespace; throws on a non-zero exit. */
  kn(args: string[]): Promise<string>;
  /** Inject a failure into a service of the namespace, as a case does. */
  inject(failureId: string, service: string): Promise<void>;
  /** The failure's check of the service, in a mode, with the runner's timeouts unless given. */
  check(
    failureId: string,
    service: string,
    mode: "confirm" | "final",
    timeouts?: Partial<VerifyTimeouts>,
  ): Promise<Verdict>;
}

/** The system deployed into a namespace of the running sim, Ready. */
export async function deployed(sim: SimCluster, system: string, namespace: string): Promise<Faulted> {
  const env = loadEnv(system);
  const flags = ["--env", system, "--namespace", namespace, "--kubeconfig", sim.kubeconfig];
  const d = await cli(["deploy", system, ...flags]);
  if (d.exitCode !== 0) throw new Error(`deploy ${system}: ${d.stderr}`);
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfig);
  const client = new KubeClient(kc);
  const time = await ClusterTime.of(client);
  return {
    env,
    namespace,
    kn: async (args) => (await sim.kubectl(["-n", namespace, ...args])).stdout,
    async inject(failureId, service) {
      const r = await cli(["inject", failureId, service, ...flags]);
      if (r.exitCode !== 0) throw new Error(`inject ${failureId} ${service}: ${r.stderr}`);
    },
    check(failureId, service, mode, timeouts = {}) {
      const spec = failure(failureId);
      const scope = {
        client,
        time,
        env,
        namespace,
        // the fault's own time to show (a rollout of the patched template first)
        windowMs: (spec.confirmSeconds ?? 60) * 1000,
        timeouts: { ...DEFAULT_TIMEOUTS, readyMs: env.readyTimeoutSeconds * 1000, ...timeouts },
      };
      return verifierOf(spec, targetVars(env, failureId, service)).verify(checkOf(scope, service, mode));
    },
  };
}

/** The final mode as a run's noop would meet it: the fault in place, a short wait. */
export const SHORT: Partial<VerifyTimeouts> = { readyMs: 30_000, usageMs: 20_000 };
