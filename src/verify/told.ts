// What the Verification agent tells a method of its verdict (ThinkRemed's reflection turn): no more
// than the method's report lets it know. A report that names the faulty service (the reference's
// and the expert tier's full and service levels) may hear each check's reason, which names that
// service. An alert (the symptom level) or an incident's report (which names the alerting service,
// never the causes) hears what anyone watching would: what users see and the namespace's health.
// A failed cause's own check is said to fail without naming it: which object is still wrong is
// the diagnosis the method is scored on, and the verdict must not hand it over.
import type { Score, Scorer } from "./types.js";

/** Whether a report lets its method hear the faults' own checks: it names the faulty service itself. */
export function namesCauses(report: { level?: string; incident?: boolean }): boolean {
  return !report.incident && (report.level ?? "full") !== "symptom";
}

export const UNNAMED_CAUSE =
  "users' requests pass and the namespace is healthy, but the incident is not resolved: a cause is still in place (which one is not told at this report's level)";

/** The verdict's reason as a method whose report names no cause may hear it. */
export function toldReason(score: Score): string {
  if (score.pass) return score.reason;
  const seen = [score.user, score.health].find((v) => v && !v.pass)?.reason ?? UNNAMED_CAUSE;
  const held = score.held?.failedAtMs;
  if (held === undefined) return seen;
  return `the checks passed, then failed ${Math.round(held / 1000)} s into the ${Math.round(score.held!.ms / 1000)} s hold: ${seen}`;
}

/** The scorer a method is handed: each score carries what it may be told (`told`). */
export function toldScorer(s: Scorer, report: { level?: string; incident?: boolean }): Scorer {
  if (namesCauses(report)) return s;
  return {
    score: async (signal) => {
      const score = await s.score(signal);
      return { ...score, told: toldReason(score) };
    },
  };
}
