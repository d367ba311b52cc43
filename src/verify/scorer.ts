// The score role: settle for the reference's settle time, then each fault's reference check and
// the namespace-health (no collateral damage) check. The runner scores the final state with it,
// and ThinkRemed's Verification agent gets the same object.

import type { VerifierId } from "../chaos/catalog.js";
import type { ClusterTime } from "../cluster/time.js";
import type { HealthSnapshot } from "../envs/health.js";
import { verifyNamespaceHealth } from "./health.js";
import { VERIFIERS } from "./registry.js";
import type { Score, Scorer, Verdict, VerifyContext } from "./types.js";

/** Several faults' verdicts as one. */
export function mergeVerdicts(vs: Verdict[]): Verdict {
  if (vs.length === 1) return vs[0];
  return {
    pass: vs.every((v) => v.pass),
    reason: vs.map((v) => v.reason).join(" | "),
    measurements: { faults: vs.map((v) => v.measurements) },
  };
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
}

export class CaseScorer implements Scorer {
  constructor(private readonly o: ScorerOptions) {}

  async score(signal?: AbortSignal): Promise<Score> {
    await this.o.time.sleep(this.o.settleMs, signal);
    const refs: Verdict[] = [];
    for (const f of this.o.faults)
      refs.push(await VERIFIERS[f.verifier].verify(this.o.context(f.service, signal)));
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
}
