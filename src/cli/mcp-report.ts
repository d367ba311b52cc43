// The diagnosis report `microremed mcp` serves: a case's conversation.json, or a report on its
// own, of any --report level, refused with what it lacks when it is not one.
import { readFileSync } from "node:fs";
import { REPORT_LEVELS, type ReportLevel } from "../diagnosis/levels.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import { MicroRemedError } from "../errors.js";

/** The fields every report has, and what its level adds (src/diagnosis/build.ts reportAt). */
const COMMON = ["namespace", "env", "runtimeContext", "inventory"];
const BY_LEVEL: Record<ReportLevel, string[]> = {
  full: ["service", "category"],
  service: ["service"],
  // an alert in place of a service: what monitoring paged with
  symptom: ["alert"],
};

/** A report of any level, from a case's conversation.json or the report on its own. */
export function loadReport(file: string): DiagnosisReport {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new MicroRemedError(
      "E_CONFIG",
      `cannot read the report ${file}: ${(e as Error).message}`,
      "pass a JSON file",
    );
  }
  // a case's conversation.json holds the report under "report"
  const r = (typeof doc.report === "object" && doc.report ? doc.report : doc) as Record<string, unknown>;
  // reports written before levels have none: they are full ones
  const level = r.level ?? "full";
  if (typeof level !== "string" || !(REPORT_LEVELS as readonly string[]).includes(level))
    throw new MicroRemedError(
      "E_CONFIG",
      `${file} is a report of an unknown level ${JSON.stringify(level)}`,
      `a report's level is ${REPORT_LEVELS.join(", ")} (or none, for full): pass a case's conversation.json`,
    );
  const missing = [...COMMON, ...BY_LEVEL[level as ReportLevel]].filter((k) => typeof r[k] !== "string");
  if (missing.length)
    throw new MicroRemedError(
      "E_CONFIG",
      `${file} is not a diagnosis report of the ${level} level (no ${missing.join(", ")})`,
      "pass a case's conversation.json, or its report as JSON",
    );
  return r as unknown as DiagnosisReport;
}
