// The score role: settle for the reference's settle time, then each fault's reference check and
// the namespace-health (no collateral damage) check. The runner scores the final state with it,
// and ThinkRemed's Verification agent gets the same object.

import type { VerifierId } from "../chaos/catalog.js";
import type { ClusterTime } from "../cluster/time.js";
import type { HealthSnapshot } from "../envs/health.js";
import { verifyNamespaceHealth } from "./health.js";
import { VERIFIERS } from "./registry.js";
import type { Score, Scorer, Verdict, VerifyContext } from "./types.js";

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

export interface ScorerOptions {
  time: ClusterTime;
  /** Cluster ms to wait before looking (the reference: 10 s). */
  settleMs: number;
  faults: { verifier: VerifierId; service: string }[];
  /** The namespace as it was before the case (what no-collateral-damage compares with). */
  baseline: HealthSnapshot;
  /** A verify context in final mode for a service. */
  context: (service: string, signal?: AbortSignal) => VerifyContext;
  /**
   * Cluster ms at which a fault of the case ends by its own duration (a PodChaos's 1200 s). A check
   * that passes only after that cannot tell a remediation from the fault's end: it does not count,
   * and no wait runs past it.
   */
  faultsEndAt?: number;
}

export class CaseScorer implements Scorer {
  constructor(private readonly o: ScorerOptions) {}

  async score(signal?: AbortSignal): Promise<Score> {
    await this.o.time.sleep(this.o.settleMs, signal);
    const refs: Verdict[] = [];
    for (const f of this.o.faults) refs.push(await this.verifyInTime(f, signal));
    const reference = mergeVerdicts(refs);
    // A failed reference check decides the case: then health is read once instead of waited for.
    const health = await verifyNamespaceHealth(
      this.o.context(this.o.faults[0].service, signal),
      this.o.baseline,
      reference.pass,
    );
    return {
      pass: reference.pass && health.pass,
      reason: reference.pass ? health.reason : reference.reason,
      measurements: { reference: reference.measurements, health: health.measurements },
      reference,
      health,
    };
  }

  /** One fault's check, within the time its fault still holds. */
  private async verifyInTime(f: { verifier: VerifierId; service: string }, signal?: AbortSignal) {
    const ctx = this.o.context(f.service, signal);
    const end = this.o.faultsEndAt;
    if (end === undefined) return VERIFIERS[f.verifier].verify(ctx);
    const left = end - (await this.o.time.clusterNow());
    const timeouts = { ...ctx.timeouts, readyMs: Math.min(ctx.timeouts.readyMs, Math.max(0, left)) };
    const v = left > 0 ? await VERIFIERS[f.verifier].verify({ ...ctx, timeouts }) : undefined;
    const late = (await this.o.time.clusterNow()) - end;
    if (v && (!v.pass || late < 0)) return v;
    return {
      pass: false,
      reason: `the fault's chaos had run its full duration ${Math.round(late / 1000)} s ${v ? "before the check passed" : "before the check"}: a recovery then cannot be told from the fault's own end`,
      measurements: v?.measurements ?? {},
    };
  }
}
