// The verifier seam: cluster and case in, {pass, reason, measurements} out.

import type { EnvSpec } from "../envs/env.js";
import type { VerifierId } from "../faults/catalog.js";
import type { KubeClient } from "../kube/client.js";
import type { Clock } from "../kube/time.js";

export interface Verdict {
  pass: boolean;
  reason: string;
  measurements: Record<string, unknown>;
  /** The measurement could not be made (no metrics yet, a command gave no result): says nothing about the fault. */
  inconclusive?: boolean;
  /** What a method may be told of this verdict, where its report names no cause (told.ts); else `reason`. */
  told?: string;
}

/**
 * Whether the injected faults showed within the injection window (the confirm step): a fact
 * about the injection, not a pass or a fail; a case whose fault never showed is not evaluated.
 */
export interface InjectionVerdict extends Omit<Verdict, "pass"> {
  faultShown: boolean;
}

/** A case's score: each verdict, and their conjunction (pass, reason) as one verdict. */
export interface Score extends Verdict {
  /** The faults' own checks (the reference's; an expert type's symptom). */
  reference: Verdict;
  /** What users see, for the cases judged by it (the expert tier). */
  user?: Verdict;
  health: Verdict;
  /** The hold window (--hold): its length, and when a reading in it failed. */
  held?: { ms: number; failedAtMs?: number };
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
  /**
   * Consecutive passing ping runs a network check needs (the reference: 1, which a 50%-loss link
   * passes by luck 1 time in 8). 3 runs (1 in 512) still let noop pass one of Online-Boutique's
   * hard cases in a sweep; 5 make it 1 in 32768.
   */
  networkRuns: number;
}

export const DEFAULT_TIMEOUTS: VerifyTimeouts = {
  readyMs: 300_000,
  usageMs: 60_000,
  pollMs: 2000,
  networkRuns: 5,
};

/** Where and how long checks look: the cluster and its clock, the system, its namespace. */
export interface CheckScope {
  client: KubeClient;
  time: Clock;
  env: EnvSpec;
  namespace: string;
  /** Cluster ms: how long an injected fault may take to show (the injection timeout). */
  windowMs: number;
  timeouts: VerifyTimeouts;
  signal?: AbortSignal;
}

/** One check of one service. */
export interface VerifyContext extends CheckScope {
  service: string;
  /** confirm: is the fault visible now (within the window)? final: has the system recovered? */
  mode: "confirm" | "final";
}

/** The scope's check of a service in a mode (a case's context holds more than a check may read). */
export function checkOf(
  s: CheckScope,
  service: string,
  mode: VerifyContext["mode"],
  signal = s.signal,
): VerifyContext {
  const { client, time, env, namespace, windowMs, timeouts } = s;
  return { client, time, env, namespace, windowMs, timeouts, signal, service, mode };
}

export interface Verifier {
  readonly id: VerifierId;
  verify(ctx: VerifyContext): Promise<Verdict>;
}
