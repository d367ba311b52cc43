// `microremed report` without the CLI: load runs, build the data, render it in one format.
import { usageError } from "../errors.js";
import { buildReport, type Report } from "./aggregate.js";
import { type RunTraces, renderHtml } from "./html.js";
import { loadRuns } from "./load.js";
import { renderMarkdown } from "./markdown.js";
import type { LoadedRun } from "./runs.js";
import { readTrace } from "./trace.js";

export const FORMATS = ["md", "json", "html"] as const;
export type Format = (typeof FORMATS)[number];

export function parseFormat(v: string): Format {
  if (!(FORMATS as readonly string[]).includes(v))
    throw usageError(`unknown --format "${v}"`, `use one of: ${FORMATS.join(", ")}`);
  return v as Format;
}

/** Which cases get a trace in the HTML report: those that did not succeed, all, none, or these indexes. */
export type CaseSelection = "failed" | "all" | "none" | number[];

export function parseCases(v: string): CaseSelection {
  if (v === "failed" || v === "all" || v === "none") return v;
  const ids = v.split(",").map((x) => Number(x.trim()));
  if (!ids.length || ids.some((n) => !Number.isInteger(n) || n < 1))
    throw usageError(
      `--cases must be failed, all, none or case numbers like 3,7, got "${v}"`,
      "pass e.g. --cases all",
    );
  return ids;
}

export function tracesOf(runs: LoadedRun[], which: CaseSelection): RunTraces[] {
  if (which === "none") return [];
  // a run merged from shards: each shard's traces from its own folder
  return runs
    .flatMap((r) => r.parts ?? [r])
    .map((run) => ({
      run: run.dir,
      label: `${run.model} / ${run.method}, ${run.tier}, ${run.env}${run.shard ? `, shard ${run.shard}` : ""} (${run.dir})`,
      traces: run.cases
        .filter((c) =>
          which === "all" ? true : which === "failed" ? c.status !== "success" : which.includes(c.index),
        )
        .sort((a, b) => a.index - b.index)
        .map((c) => readTrace(run.dir, c)),
    }));
}

export function render(r: Report, format: Format, traces: RunTraces[] = []): string {
  if (format === "json") return `${JSON.stringify(r, null, 2)}\n`;
  return format === "html" ? renderHtml(r, traces) : renderMarkdown(r);
}

export function reportFrom(paths: string[], format: Format, cases: CaseSelection = "failed"): string {
  const runs = loadRuns(paths);
  return render(buildReport(runs), format, format === "html" ? tracesOf(runs, cases) : []);
}

export { buildReport, type Report } from "./aggregate.js";
export { diffRuns, formatDiff } from "./diff.js";
export { loadRun, loadRuns } from "./load.js";
export { readTrace } from "./trace.js";
export { formatTrace } from "./trace-text.js";
