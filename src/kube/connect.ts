// Reaching a cluster through a kubeconfig, the same way for the embedded cluster and for k3s.
// The kubeconfig comes from --kubeconfig, else KUBECONFIG, else ~/.kube/config; never a fixed path.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { MicroRemedError } from "../errors.js";

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
}

export function resolveKubeconfigPath(explicit?: string): string {
  if (explicit) return explicit;
  const env = process.env.KUBECONFIG?.split(":").find((p) => p && existsSync(p));
  if (env) return env;
  return join(homedir(), ".kube", "config");
}

export function loadKubeConfig(opts: ConnectOptions): { kc: KubeConfig; path: string } {
  const path = resolveKubeconfigPath(opts.kubeconfig);
  if (!existsSync(path))
    throw new MicroRemedError(
      "E_CLUSTER_UNREACHABLE",
      `no kubeconfig at ${path}`,
      "pass --kubeconfig FILE, set KUBECONFIG, or use the embedded cluster (--cluster sim)",
    );
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (e) {
    throw new MicroRemedError(
      "E_CLUSTER_UNREACHABLE",
      `cannot read kubeconfig ${path}: ${(e as Error).message}`,
      "check the file is a valid kubeconfig",
      { cause: e },
    );
  }
  if (opts.context) {
    if (!kc.getContexts().some((c) => c.name === opts.context))
      throw new MicroRemedError(
        "E_CLUSTER_UNREACHABLE",
        `context "${opts.context}" is not in ${path}`,
        `use one of: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(", ") || "(none)"
        }`,
      );
    kc.setCurrentContext(opts.context);
  }
  if (!kc.getCurrentCluster())
    throw new MicroRemedError(
      "E_CLUSTER_UNREACHABLE",
      `kubeconfig ${path} has no current cluster`,
      "set current-context or pass --context",
    );
  return { kc, path };
}
