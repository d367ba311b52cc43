// `microremed report` without the CLI: load runs, build the data, render it in one format.
import { usageError } from "../errors.js";
import { buildReport, type Report } from "./aggregate.js";
import { renderHtml } from "./html.js";
import { loadRuns } from "./load.js";
import { renderMarkdown } from "./markdown.js";

export const FORMATS = ["md", "json", "html"] as const;
export type Format = (typeof FORMATS)[number];

export function parseFormat(v: string): Format {
  if (!(FORMATS as readonly string[]).includes(v))
    throw usageError(`unknown --format "${v}"`, `use one of: ${FORMATS.join(", ")}`);
  return v as Format;
}

export function render(r: Report, format: Format): string {
  if (format === "json") return `${JSON.stringify(r, null, 2)}\n`;
  return format === "html" ? renderHtml(r) : renderMarkdown(r);
}

export function reportFrom(paths: string[], format: Format): string {
  return render(buildReport(loadRuns(paths)), format);
}

export { buildReport, type Report } from "./aggregate.js";
export { loadRuns } from "./load.js";
export { wilson } from "./wilson.js";
