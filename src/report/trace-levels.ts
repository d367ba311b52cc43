// What `show` and the case traces add for the report levels: the report level the method was handed, what
// it changed against what the fault touched (localized, collateral), the diagnosis it stated,
// and the background noise made before its report.
import type { CaseRecord } from "../runlog/records.js";

export function levelLines(r: CaseRecord): string[] {
  const out: string[] = [];
  if (r.report) out.push(`report level: ${r.report}`);
  const l = r.localization;
  if (l)
    out.push(
      `localization: ${l.localized ? "localized" : "not localized"}; the fault's objects: ${l.faultObjects.join(", ") || "-"}; changed: ${l.changed.join(", ") || "nothing"}; collateral: ${l.collateral.join(", ") || "none"}`,
    );
  const d = r.diagnosis;
  if (d)
    out.push(
      `stated diagnosis: ${d.service} (${d.correct ? "the fault's service" : "not the fault's service"}): ${d.cause}`,
    );
  for (const e of r.noise ?? []) out.push(`noise: ${e.kind} on ${e.target}: ${e.detail}`);
  return out.length ? ["== Level, localization, diagnosis, noise", ...out, ""] : [];
}
