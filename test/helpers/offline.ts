// The parts of a case's context that fake roles never touch: a client for a cluster that is not
// there (nothing may call it), the built-in simple-micro system, and a run's configuration with
// every default, as the CLI would make it.
import { KubeConfig } from "@kubernetes/client-node";
import { loadEnv } from "../../src/envs/env.js";
import { KubeClient } from "../../src/kube/client.js";
import { type RunConfig, type RunKey, resolveConfig, withDefaults } from "../../src/runner/config.js";

export function offlineClient(): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "none", server: "https://127.0.0.1:9", skipTLSVerify: true }],
    users: [{ name: "none" }],
    contexts: [{ name: "none", cluster: "none", user: "none" }],
    currentContext: "none",
  });
  return new KubeClient(kc);
}

export const simpleMicro = () => loadEnv("simple-micro");

export const runConfig = (given: Partial<Record<RunKey, unknown>> = {}): RunConfig =>
  resolveConfig(withDefaults({ env: "simple-micro", model: "noop", ...given }));
