// The verifier seam: cluster and case in, {pass, reason, measurements} out.
import type { VerifierId } from "../chaos/catalog.js";
import type { KubeClient } from "../cluster/client.js";
import type { ClusterTime } from "../cluster/time.js";
import type { EnvSpec } from "../envs/env.js";

export interface Verdict {
  pass: boolean;
  reason: string;
  measurements: Record<string, unknown>;
  /** The measurement could not be made (no metrics yet, a command gave no result): says nothing about the fault. */
  inconclusive?: boolean;
}

/**
 * Whether the injected faults showed within the injection window (the confirm step): a fact
 * about the injection, not a pass or a fail; a case whose fault never showed is not evaluated.
 */
export interface InjectionVerdict extends Omit<Verdict, "pass"> {
  faultShown: boolean;
}

/** A case's score: both verdicts, and their conjunction (pass, reason) as one verdict. */
export interface Score extends Verdict {
  reference: Verdict;
  health: Verdict;
}

/** The score role: settle, then the reference checks and namespace health (the Verification agent's view). */
export interface Scorer {
  score(signal?: AbortSignal): Promise<Score>;
}

export interface VerifyTimeouts {
  /** Cluster ms to wait for the target pods to be Running+Ready (reference: 300 s). */
  readyMs: number;
  /** Cluster ms the usage checks keep polling (every pollMs). */
  usageMs: number;
  /** Cluster ms between polls when nothing is watched (reference: 2 s for usage). */
  pollMs: number;
  /** Consecutive passing ping runs a network check needs (the reference: 1; 3 makes a 50%-loss link pass by luck 1 time in 512, not 1 in 8). */
  networkRuns: number;
}

export const DEFAULT_TIMEOUTS: VerifyTimeouts = {
  readyMs: 300_000,
  usageMs: 60_000,
  pollMs: 2000,
  networkRuns: 3,
};

export interface VerifyContext {
  client: KubeClient;
  time: ClusterTime;
  env: EnvSpec;
  namespace: string;
  service: string;
  /** confirm: is the fault visible now (within the window)? final: has the system recovered? */
  mode: "confirm" | "final";
  /** Cluster ms: the injection timeout in confirm mode. */
  windowMs: number;
  timeouts: VerifyTimeouts;
  signal?: AbortSignal;
}

export interface Verifier {
  readonly id: VerifierId;
  verify(ctx: VerifyContext): Promise<Verdict>;
}
