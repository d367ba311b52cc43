// The score role: settle for the reference's settle time, then each fault's reference check and
// the namespace-health (no collateral damage) check. The runner scores the final state with it,
// and ThinkRemed's Verification agent gets the same object. What is read is the plan's: each
// fault's check and the health check come in with it (the registry's and health.ts's in a run, fakes
// in tests), and for the expert tier what users see beside them. With a hold (--hold, the expert
// tier's default), every verdict is read again over the hold window after they first pass.
import type { HealthSnapshot } from "../envs/health.js";
import { restartCounts, verifyNamespaceHealth } from "./health.js";
import {
  type CheckScope,
  checkOf,
  type Score,
  type Scorer,
  type Verdict,
  type Verifier,
  type VerifyContext,
} from "./types.js";
import type { UserFacing } from "./user.js";

/** Several faults' readings as one: the reasons side by side, the measurements per fault. */
export function mergeReadings(vs: Pick<Verdict, "reason" | "measurements">[]) {
  if (vs.length === 1) return { reason: vs[0].reason, measurements: vs[0].measurements };
  return {
    reason: vs.map((v) => v.reason).join(" | "),
    measurements: { faults: vs.map((v) => v.measurements) },
  };
}

/** Several faults' verdicts as one: it passes when every one does. */
export function mergeVerdicts(vs: Verdict[]): Verdict {
  if (vs.length === 1) return vs[0];
  return { pass: vs.every((v) => v.pass), ...mergeReadings(vs) };
}

/** The namespace's health, after the fault's own checks: waited for, or read once. */
export interface HealthCheck {
  /** `holding`: a reading of the hold, after a first reading of the same score passed. */
  verify(ctx: VerifyContext, wait: boolean, holding: boolean): Promise<Verdict>;
}

/**
 * No collateral damage: every workload that was healthy before the case still is (health.ts);
 * and over the hold, no container of the namespace restarts (a pod that crash-loops can look
 * Ready at every reading: its restart count does not hide it).
 */
export const namespaceHealth = (baseline: HealthSnapshot): HealthCheck => {
  let first: Map<string, number> | undefined;
  return {
    async verify(ctx, wait, holding) {
      const v = await verifyNamespaceHealth(ctx, baseline, wait);
      if (!holding) {
        first = v.pass ? await restartCounts(ctx) : undefined;
        return v;
      }
      if (!v.pass || !first) return v;
      const before = first;
      const grew = [...(await restartCounts(ctx))].filter(([k, n]) => n > (before.get(k) ?? n));
      if (!grew.length) return v;
      return {
        pass: false,
        reason: `${grew.map(([k, n]) => `${k} restarted (restarts ${before.get(k)} → ${n})`).join(", ")} since the checks first passed`,
        measurements: { ...v.measurements, restarted: Object.fromEntries(grew) },
      };
    },
  };
};

/** What a case is scored on. */
export interface ScorePlan {
  /** Each fault's own check (the reference's, or an expert type's symptom), on its target. */
  faults: { check: Verifier; service: string }[];
  health: HealthCheck;
  /** What users see (the expert tier's requests along the entry path), when the case is judged by it. */
  user?: UserFacing;
  /**
   * Cluster ms every check must keep passing after they first pass (--hold): a fix that reverts,
   * a pod that crash-loops between two readings or a chaos that returns fails the case.
   */
  holdMs?: number;
  /**
   * Cluster ms at which a fault of the case ends by its own duration (a PodChaos's 1200 s). A check
   * that passes only after that cannot tell a remediation from the fault's end: it does not count,
   * and no wait runs past it.
   */
  faultsEndAt?: number;
}

/** The scope a scorer reads: the checks' scope and the settle time (cluster ms; the reference: 10 s). */
export interface ScoreContext extends CheckScope {
  settleMs: number;
}

export class CaseScorer implements Scorer {
  constructor(
    private readonly ctx: ScoreContext,
    private readonly plan: ScorePlan,
  ) {}

  async score(signal?: AbortSignal): Promise<Score> {
    await this.ctx.time.sleep(this.ctx.settleMs, signal);
    const first = await this.read(signal, true);
    const holdMs = this.plan.holdMs ?? 0;
    if (!first.pass || holdMs <= 0) return first;
    return this.hold(first, holdMs, signal);
  }

  /**
   * Every check once: the faults' own, what users see, then the namespace's health. The first
   * reading waits for what it reads and counts only within the faults' lives; the hold's look
   * once, and count whenever they end (the recovery was already seen before the faults' end;
   * they watch for it coming undone, which after that end only a fix can do).
   */
  private async read(signal: AbortSignal | undefined, wait: boolean): Promise<Score> {
    const refs: Verdict[] = [];
    for (const f of this.plan.faults)
      refs.push(await (wait ? this.verifyInTime(f, signal) : f.check.verify(this.once(f.service, signal))));
    const reference = mergeVerdicts(refs);
    const scope = { ...this.ctx, signal };
    // A failed check decides the case: the checks after it are read once instead of waited for.
    const user = this.plan.user && (await this.plan.user.verify(scope, "final", wait && reference.pass));
    const upToUser = reference.pass && (user?.pass ?? true);
    const health = await this.plan.health.verify(
      checkOf(this.ctx, this.plan.faults[0].service, "final", signal),
      wait && upToUser,
      !wait,
    );
    const failed = [reference, user, health].find((v) => v && !v.pass);
    return {
      pass: !failed,
      reason: (failed ?? health).reason,
      measurements: {
        reference: reference.measurements,
        ...(user ? { user: user.measurements } : {}),
        health: health.measurements,
      },
      reference,
      ...(user ? { user } : {}),
      health,
    };
  }

  /**
   * Read every check again over the hold window, every tenth of it (at least every 5 s, at most
   * every 15 s of cluster time); the first reading that fails fails the case and says when.
   */
  private async hold(first: Score, holdMs: number, signal?: AbortSignal): Promise<Score> {
    const start = await this.ctx.time.clusterNow();
    const step = Math.min(15_000, Math.max(5_000, holdMs / 10));
    for (;;) {
      const left = start + holdMs - (await this.ctx.time.clusterNow());
      if (left <= 0) break;
      await this.ctx.time.sleep(Math.min(step, left), signal);
      const again = await this.read(signal, false);
      if (!again.pass) {
        const at = Math.round(((await this.ctx.time.clusterNow()) - start) / 1000);
        return {
          ...again,
          held: { ms: holdMs, failedAtMs: at * 1000 },
          reason: `the checks passed, then failed ${at} s into the ${Math.round(holdMs / 1000)} s hold: ${again.reason}`,
        };
      }
    }
    return { ...first, held: { ms: holdMs } };
  }

  /** One reading now of a fault's check, without waiting for readiness or usage. */
  private once(service: string, signal?: AbortSignal): VerifyContext {
    const now = checkOf(this.ctx, service, "final", signal);
    return { ...now, timeouts: { ...now.timeouts, readyMs: 0, usageMs: 0 } };
  }

  /** One fault's check, within the time its fault still holds. */
  private async verifyInTime(f: ScorePlan["faults"][number], signal?: AbortSignal): Promise<Verdict> {
    const ctx = checkOf(this.ctx, f.service, "final", signal);
    const end = this.plan.faultsEndAt;
    if (end === undefined) return f.check.verify(ctx);
    const left = end - (await this.ctx.time.clusterNow());
    const timeouts = { ...ctx.timeouts, readyMs: Math.min(ctx.timeouts.readyMs, Math.max(0, left)) };
    const v = left > 0 ? await f.check.verify({ ...ctx, timeouts }) : undefined;
    const late = (await this.ctx.time.clusterNow()) - end;
    if (v && (!v.pass || late < 0)) return v;
    return {
      pass: false,
      reason: `the fault's chaos had run its full duration ${Math.round(late / 1000)} s ${v ? "before the check passed" : "before the check"}: a recovery then cannot be told from the fault's own end`,
      measurements: v?.measurements ?? {},
    };
  }
}
