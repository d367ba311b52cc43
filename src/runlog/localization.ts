// The summary's localization table: per report level and tier, over the evaluated
// cases, success beside localized, localized-but-not-repaired and repaired-without-localizing
// (a broad restart that happened to work), and the diagnoses the agent stated (submit_diagnosis
// or MCP submit) with how many named a fault's service, each with its 95% Wilson interval.
// Success stays the headline; these say how it came about. A run has one level; `report` puts
// runs side by side, with the same figures per model, method, tier and level.
import { isEvaluated } from "../outcome.js";
import { pct, ratio, round } from "./figures.js";
import type { CaseRecord } from "./records.js";
import { wilson } from "./wilson.js";

export interface Share {
  count: number;
  rate: number;
  low: number;
  high: number;
}

/** The figures over one group of cases (evaluated ones only). */
export interface LocalizationFigures {
  evaluated: number;
  success: Share;
  localized: Share;
  localizedNotRepaired: Share;
  repairedWithoutLocalizing: Share;
  /** Cases whose agent stated a diagnosis, over the evaluated ones. */
  stated: Share;
  /** Of those, the ones naming a fault's service: over `stated.count`, not over the evaluated. */
  statedCorrect: Share;
  /**
   * An incident's causes against those the agent named (ITBench's scores), over the evaluated
   * incident cases, a case that stated nothing scoring 0: mean precision and recall, and the share
   * that named every cause. Absent where no case is an incident.
   */
  causes?: { cases: number; precision: number; recall: number; allFound: Share };
}

export interface LocalizationRow extends LocalizationFigures {
  level: string;
  tier: string;
}

const share = (count: number, n: number): Share => {
  const w = wilson(count, n) ?? { low: 0, high: 0 };
  return { count, rate: ratio(count, n) ?? 0, low: round(w.low), high: round(w.high) };
};

/** The figures over the evaluated cases among `recs`. */
export function localizationFigures(recs: CaseRecord[]): LocalizationFigures {
  const rs = recs.filter((r) => isEvaluated(r.status));
  const n = rs.length;
  const loc = (r: CaseRecord) => r.localization?.localized === true;
  const stated = rs.filter((r) => r.diagnosis);
  return {
    evaluated: n,
    success: share(rs.filter((r) => r.success).length, n),
    localized: share(rs.filter(loc).length, n),
    localizedNotRepaired: share(rs.filter((r) => loc(r) && !r.success).length, n),
    repairedWithoutLocalizing: share(rs.filter((r) => !loc(r) && r.success).length, n),
    stated: share(stated.length, n),
    statedCorrect: share(stated.filter((r) => r.diagnosis?.correct).length, stated.length),
    ...causeFigures(rs),
  };
}

/** The per-cause scores over the incident cases among the evaluated `rs`, if any. */
function causeFigures(rs: CaseRecord[]): Pick<LocalizationFigures, "causes"> {
  const incidents = rs.filter((r) => r.tier === "incident");
  const n = incidents.length;
  if (!n) return {};
  const mean = (f: (r: CaseRecord) => number) => round(incidents.reduce((a, r) => a + f(r), 0) / n);
  return {
    causes: {
      cases: n,
      precision: mean((r) => r.diagnosis?.precision ?? 0),
      recall: mean((r) => r.diagnosis?.recall ?? 0),
      allFound: share(incidents.filter((r) => r.diagnosis?.allFound).length, n),
    },
  };
}

/** "causes: precision 0.50, recall 0.75, all found 50.0% (1/2) [..]", or nothing without incidents. */
export const formatCauses = (f: Pick<LocalizationFigures, "causes">) =>
  f.causes
    ? `; causes: precision ${f.causes.precision.toFixed(2)}, recall ${f.causes.recall.toFixed(2)}, all found ${formatShare(f.causes.allFound, f.causes.cases)}`
    : "";

/** One row per level and tier the evaluated records show (records of versions before levels: full). */
export function localizationRows(recs: CaseRecord[]): LocalizationRow[] {
  const groups = new Map<string, CaseRecord[]>();
  for (const r of recs) {
    if (!isEvaluated(r.status)) continue;
    const key = `${r.report ?? "full"}\t${r.tier ?? "reference"}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, rs]) => {
      const [level, tier] = key.split("\t");
      return { level, tier, ...localizationFigures(rs) };
    });
}

/** "37.5% (3/8) [13.7%–69.4%]"; "-" over no case, where a rate of 0% would be a claim. */
export const formatShare = (s: Share, n: number) =>
  n ? `${pct(s.rate)} (${s.count}/${n}) [${pct(s.low)}–${pct(s.high)}]` : "-";

/** "stated diagnosis 37.5% (3/8) [..], correct 66.7% (2/3) [..]": the correct ones over the stated ones. */
export const formatStated = (f: Pick<LocalizationFigures, "evaluated" | "stated" | "statedCorrect">) =>
  `stated diagnosis ${formatShare(f.stated, f.evaluated)}, correct ${formatShare(f.statedCorrect, f.stated.count)}`;

/** summary.txt's lines for the table. */
export function formatLocalization(rows: LocalizationRow[]): string[] {
  if (!rows.length) return [];
  return [
    "  Localization by report level and tier (95% intervals; localized: the agent changed the fault's objects and no other service's workload; a stated diagnosis is correct when it names a fault's service):",
    ...rows.map(
      (r) =>
        `    ${r.level.padEnd(8)} ${r.tier.padEnd(10)} success ${formatShare(r.success, r.evaluated)}; localized ${formatShare(r.localized, r.evaluated)}; localized, not repaired ${formatShare(r.localizedNotRepaired, r.evaluated)}; repaired without localizing ${formatShare(r.repairedWithoutLocalizing, r.evaluated)}; ${formatStated(r)}${formatCauses(r)}`,
    ),
  ];
}
