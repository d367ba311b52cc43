// The report levels (--report): how much of the diagnosis a method is handed.
//   full     the tier's whole report: for the reference's tiers the reference's (namespace,
//            service, failure type and category); for the expert tier its category and service,
//            never the type (docs/expert-tier.md), which is as much as that tier ever gives;
//   service  the namespace and the root-cause service, no type, no category;
//   symptom  what monitoring would page with: the user-facing check that fails, the namespace
//            and the runtime context anyone can read. No service, no category.
// Each level gives less than the one above it, for every tier.
import { usageError } from "../errors.js";

export const REPORT_LEVELS = ["full", "service", "symptom"] as const;
export type ReportLevel = (typeof REPORT_LEVELS)[number];

export function parseReportLevel(v: string): ReportLevel {
  if ((REPORT_LEVELS as readonly string[]).includes(v)) return v as ReportLevel;
  throw usageError(
    `--report must be full, service or symptom, got "${v}"`,
    "use --report full (the reference's report), service (namespace and service only) or symptom (a user-facing alert)",
  );
}

/** What a report of each level contains, in a model's words (the prompts' {{reportScope}}). */
export const REPORT_SCOPE: Record<ReportLevel, string> = {
  full: "You receive a diagnosis report naming the namespace, the root-cause service and the failure category, with the runtime context of the namespace.",
  service:
    "You receive a diagnosis report naming the namespace and the root-cause service, with the runtime context of the namespace. It does not say what kind of failure it is: finding that is part of your work.",
  symptom:
    "You receive an alert as monitoring would page it: the namespace, which user-facing request fails or slows down (its error rate and latency against the healthy baseline, since when), and the runtime context of the namespace. It names neither the faulty service nor the kind of failure: finding both is part of your work.",
};

/**
 * What an incident's report contains (docs/incident-tier.md): the service named is the one whose
 * users' requests fail, not the cause, which may lie several calls away or in another object.
 * The symptom level's alert means the same for every tier.
 */
export const INCIDENT_SCOPE: Record<Exclude<ReportLevel, "symptom">, string> = {
  full: "You receive an incident report naming the namespace, the alerting service (where users' requests fail) and the symptom's category, with the runtime context of the namespace. The causes may lie elsewhere, several calls away or in other objects, and there may be more than one: finding each is part of your work.",
  service:
    "You receive an incident report naming the namespace and the alerting service (where users' requests fail), with the runtime context of the namespace. The causes may lie elsewhere, and there may be more than one: finding each is part of your work.",
};

/** The scope text of a report as a model is told it: the reference's per level, an incident's where the report is one. */
export function reportScope(r: { level?: ReportLevel; incident?: boolean }): string {
  const level = r.level ?? "full";
  return r.incident && level !== "symptom" ? INCIDENT_SCOPE[level] : REPORT_SCOPE[level];
}
