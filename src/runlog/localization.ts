// The summary's localization table (issue 23): per report level and tier, over the evaluated
// cases, success beside localized, localized-but-not-repaired and repaired-without-localizing
// (a broad restart that happened to work), each with its 95% Wilson interval. Success stays the
// headline; these say how it came about. A run has one level; `report` puts runs side by side.
import { isEvaluated } from "../outcome.js";
import type { CaseRecord } from "./records.js";
import { wilson } from "./wilson.js";

export interface Share {
  count: number;
  rate: number;
  low: number;
  high: number;
}

export interface LocalizationRow {
  level: string;
  tier: string;
  evaluated: number;
  success: Share;
  localized: Share;
  localizedNotRepaired: Share;
  repairedWithoutLocalizing: Share;
}

const share = (count: number, n: number): Share => {
  const w = wilson(count, n) ?? { low: 0, high: 0 };
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { count, rate: n ? r(count / n) : 0, low: r(w.low), high: r(w.high) };
};

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
      const n = rs.length;
      const loc = (r: CaseRecord) => r.localization?.localized === true;
      return {
        level,
        tier,
        evaluated: n,
        success: share(rs.filter((r) => r.success).length, n),
        localized: share(rs.filter(loc).length, n),
        localizedNotRepaired: share(rs.filter((r) => loc(r) && !r.success).length, n),
        repairedWithoutLocalizing: share(rs.filter((r) => !loc(r) && r.success).length, n),
      };
    });
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
export const formatShare = (s: Share, n: number) =>
  `${pct(s.rate)} (${s.count}/${n}) [${pct(s.low)}–${pct(s.high)}]`;

/** summary.txt's lines for the table. */
export function formatLocalization(rows: LocalizationRow[]): string[] {
  if (!rows.length) return [];
  return [
    "  Localization by report level and tier (95% intervals; localized: the agent changed the fault's objects and no other service's workload):",
    ...rows.map(
      (r) =>
        `    ${r.level.padEnd(8)} ${r.tier.padEnd(10)} success ${formatShare(r.success, r.evaluated)}; localized ${formatShare(r.localized, r.evaluated)}; localized, not repaired ${formatShare(r.localizedNotRepaired, r.evaluated)}; repaired without localizing ${formatShare(r.repairedWithoutLocalizing, r.evaluated)}`,
    ),
  ];
}
