// The report's table of localization and stated diagnoses: per model × method × tier ×
// report level, success beside localized, localized-but-not-repaired and
// repaired-without-localizing, and the diagnoses the agent stated with the correct ones, each with
// its 95% Wilson interval, as each run's summary gives them (runlog/localization.ts).
import type { Share } from "../runlog/localization.js";
import type { Report } from "./aggregate.js";
import { intervalText, keyColumns, rateText, type Table, table } from "./table-text.js";

/** "75.0% (3/4) [30.1% – 95.4%]", "-" over no case. */
const shareText = (s: Share, n: number) =>
  n ? `${rateText(s.count, n, s.rate)} [${intervalText({ low: s.low, high: s.high })}]` : "-";

/** The table, or none when no case of the report was scored (runs recorded before localization). */
export function localizationTables(r: Report): Table[] {
  if (!r.localization.some((x) => x.scored > 0)) return [];
  const { head, cells } = keyColumns(r.levels);
  // an incident's causes, scored per cause, where the report holds incident cases
  const causes = r.localization.some((x) => x.causes);
  const t = table(
    {
      id: "localization",
      title: "Localization and stated diagnoses by model, method, tier and report level",
      note: "Over evaluated cases, with 95% Wilson intervals in brackets. Localized: the agent changed the fault's objects and no other service's workload; repaired without localizing: a success by a broad change. A stated diagnosis (submit_diagnosis, or an MCP agent's submit) is correct when it names a fault's service, counted over the diagnoses stated. For an incident, the causes it named (kind and name) against the incident's: mean precision and recall, and all causes found (ITBench's strict score), over its evaluated cases, one that stated nothing scoring 0. '-' where the cases were recorded before localization was scored.",
      head: [
        ...head,
        "evaluated",
        "success",
        "localized",
        "localized, not repaired",
        "repaired without localizing",
        "stated diagnosis",
        "correct diagnosis",
        ...(causes ? ["cause precision", "cause recall", "all causes found"] : []),
      ],
      rows: r.localization.map((x) => {
        const n = x.scored ? x.evaluated : 0;
        // success as the success table prints it (its interval rounded as there), to agree with it
        const cell = r.byTier.find(
          (c) => c.model === x.model && c.method === x.method && c.level === x.level && c.tier === x.tier,
        );
        return [
          ...cells(x),
          String(x.evaluated),
          cell?.evaluated
            ? `${rateText(cell.successes, cell.evaluated, cell.successRate)} [${intervalText(cell.interval)}]`
            : "-",
          shareText(x.localized, n),
          shareText(x.localizedNotRepaired, n),
          shareText(x.repairedWithoutLocalizing, n),
          shareText(x.stated, n),
          shareText(x.statedCorrect, x.scored ? x.stated.count : 0),
          ...(causes
            ? x.causes
              ? [
                  x.causes.precision.toFixed(2),
                  x.causes.recall.toFixed(2),
                  shareText(x.causes.allFound, x.causes.cases),
                ]
              : ["-", "-", "-"]
            : []),
        ];
      }),
    },
    head.length,
  );
  return [t];
}
