// The report's tables as plain rows of text, built once and printed as Markdown or HTML, so the
// two formats cannot disagree on a number.

import type { Report } from "./aggregate.js";
import { localizationTables } from "./localization-table.js";
import { reasonTables } from "./reason-tables.js";
import { reliabilityTables } from "./reliability-tables.js";
import { seriesLabeller } from "./runs.js";
import type { Stats } from "./stats.js";
import { int, intervalText, keyColumns, num, rateText, type Table, table, usd } from "./table-text.js";

export function reportTables(r: Report): Table[] {
  const { head: keyHead, cells: key } = keyColumns(r.levels);
  const keys = keyHead.length;
  const rate = (s: Stats) => rateText(s.successes, s.evaluated, s.successRate);
  const apart = (s: Stats) => `${s.interrupted} / ${s.errors}`;
  return [
    table(
      {
        id: "success",
        title: "Success by model, method and tier",
        note: "Success rate over evaluated cases (success + failure) with its 95% Wilson interval; injection failures, interrupted cases and harness errors are counted apart.",
        head: [
          ...keyHead,
          "success",
          "95% interval",
          "evaluated",
          "injection failures",
          "interrupted / errors",
          "attempts per success",
          "mean remediation (s)",
        ],
        rows: r.byTier.map((s) => [
          ...key(s),
          rate(s),
          intervalText(s.interval),
          String(s.evaluated),
          String(s.injectionFailures),
          apart(s),
          num(s.attemptsPerSuccess),
          num(s.meanRemediationSeconds),
        ]),
      },
      keys,
    ),
    table(
      {
        id: "cost",
        title: "Tokens and cost by model, method and tier",
        note: "Tokens of every case; per case means per evaluated case. Cost is '-' when the model has no prices in the registry.",
        head: [
          ...keyHead,
          "input tokens",
          "output tokens",
          "tokens per case",
          "cost (USD)",
          "cost per case (USD)",
        ],
        rows: r.byTier.map((s) => [
          ...key(s),
          int(s.tokens.input),
          int(s.tokens.output),
          s.tokens.perCase === null ? "-" : int(s.tokens.perCase),
          usd(s.cost?.usd),
          usd(s.cost?.perCase),
        ]),
      },
      keys,
    ),
    table(
      {
        id: "verdicts",
        title: "Reference verdict and no-collateral-damage verdict",
        note: "Passes of each check over evaluated cases. A case succeeds only when both pass; the last column counts cases the reference check alone would have counted as successes.",
        head: [
          ...keyHead,
          "evaluated",
          "reference passed",
          "health passed",
          "reference passed, health failed",
        ],
        rows: r.byTier.map((s) => {
          const v = s.verdicts;
          return [
            ...key(s),
            String(s.evaluated),
            rateText(v.referencePasses, s.evaluated, v.referenceRate),
            rateText(v.healthPasses, s.evaluated, v.healthRate),
            String(v.referencePassHealthFail),
          ];
        }),
      },
      keys,
    ),
    table(
      {
        id: "failures",
        title: "Success by failure type",
        note: "All tiers and systems pooled, report levels never; '-' where a model and method met no evaluated case of that type.",
        head: ["failure type", ...r.series.map(seriesLabeller(r.levels))],
        rows: r.perFailure.map((f) => [
          f.failure,
          ...f.cells.map((c) => (c ? rateText(c.successes, c.evaluated, c.successRate) : "-")),
        ]),
      },
      1,
    ),
    table(
      {
        id: "systems",
        title: "Success by system",
        note: "All tiers pooled per system; report levels never are.",
        head: [
          "system",
          "model",
          "method",
          ...(r.levels.length > 1 ? ["level"] : []),
          "success",
          "95% interval",
          "evaluated",
          "injection failures",
        ],
        rows: r.perSystem.map((s) => [
          s.env,
          s.model,
          s.method,
          ...(r.levels.length > 1 ? [s.level] : []),
          rate(s),
          intervalText(s.interval),
          String(s.evaluated),
          String(s.injectionFailures),
        ]),
      },
      r.levels.length > 1 ? 4 : 3,
    ),
    ...localizationTables(r),
    ...reliabilityTables(r),
    ...reasonTables(r),
  ];
}
