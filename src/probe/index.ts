// The probe sandbox's public face: createProbe for a kubeconfig file, openProbe for the runner
// (which holds a loaded KubeConfig, not a path), and the limits a method may ask for.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { createProbe, type Probe } from "./sandbox.js";

export { checkKubectl } from "./kubectl.js";
export { createProbe, cut, type Probe, type ProbeOptions } from "./sandbox.js";
export { splitCommandLine } from "./tokenize.js";

export interface ProbeLimits {
  /** Wall seconds per command. Not scaled by the cluster's clock speed: probes read state now
   * (no watch, no follow, rollout status without waiting), so what they take is API latency. */
  timeoutSeconds: number;
  /** Characters of observation per probe call. */
  maxOutput: number;
  /** Commands in one `;`-separated probe. */
  maxCommands: number;
}

/** The reference runs each probe command with a 10 s timeout. */
export const DEFAULT_PROBE_LIMITS: ProbeLimits = { timeoutSeconds: 10, maxOutput: 8000, maxCommands: 10 };

/** The limits a method declares (a `probeLimits` field, e.g. ThinkRemed's from its YAML), else the defaults. */
export function probeLimitsOf(method: object): ProbeLimits {
  const declared = (method as { probeLimits?: Partial<ProbeLimits> }).probeLimits;
  return { ...DEFAULT_PROBE_LIMITS, ...declared };
}

/**
 * A probe for the cluster of a loaded kubeconfig. The file kubectl needs is written on the first
 * probe (methods that never probe cost nothing) into a private temporary folder, removed by close().
 */
export function openProbe(
  kc: KubeConfig,
  namespace: string,
  limits: ProbeLimits,
): { probe: Probe; close: () => void } {
  let dir: string | undefined;
  let probe: Probe | undefined;
  return {
    probe: (command) => {
      if (!probe) {
        dir = mkdtempSync(join(tmpdir(), "microremed-probe-"));
        const kubeconfig = join(dir, "kubeconfig");
        writeFileSync(kubeconfig, kc.exportConfig(), { mode: 0o600 });
        probe = createProbe({
          kubeconfig,
          namespace,
          timeoutMs: limits.timeoutSeconds * 1000,
          maxOutput: limits.maxOutput,
          maxCommands: limits.maxCommands,
        });
      }
      return probe(command);
    },
    close: () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
