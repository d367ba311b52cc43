// The limits a probe runs under, and the defaults a method's definition may override.

export interface ProbeLimits {
  /** Wall seconds per command. Not scaled by the cluster's clock speed: probes read state now
   * (no watch, no follow, rollout status without waiting), so what they take is API latency. */
  timeoutSeconds: number;
  /** Characters of observation per probe call. */
  maxOutput: number;
  /** Commands in one `;`-separated probe. */
  maxCommands: number;
}

/** Bytes read from one command before it is stopped, before the filters narrow its output. */
export const CAPTURE_BYTES = 2_000_000;

/** Characters each command of a list keeps at least, however many share the call's output. */
export const MIN_SHARE = 200;

/** The reference runs each probe command with a 10 s timeout. */
export const DEFAULT_PROBE_LIMITS: ProbeLimits = { timeoutSeconds: 10, maxOutput: 8000, maxCommands: 10 };

/** The limits a method declares, over the defaults. */
export function probeLimits(declared: Partial<ProbeLimits> = {}): ProbeLimits {
  return { ...DEFAULT_PROBE_LIMITS, ...declared };
}
