// --format md: the tables as GitHub Markdown, for a terminal, a PR comment or a summary.md.
import type { Report } from "./aggregate.js";
import { levelsText, seriesCount } from "./runs.js";
import type { Table } from "./table-text.js";
import { reportTables } from "./tables.js";

/** Pipes inside a cell would split it into two columns. */
const cell = (s: string) => s.replace(/\|/g, "\\|");

export function markdownTable(t: Table): string {
  const row = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `|${t.numeric.map((n) => (n ? "---:" : "---")).join("|")}|`;
  return [row(t.head), rule, ...t.rows.map(row)].join("\n");
}

export function renderMarkdown(r: Report): string {
  const cases = r.runs.reduce((n, x) => n + x.cases, 0);
  const parts = [
    "# MicroRemed report",
    "",
    `${r.runs.length} run${r.runs.length === 1 ? "" : "s"}, ${cases} cases; ${seriesCount(r)}; tiers: ${r.tiers.join(", ")}. ${levelsText(r)}`,
  ];
  for (const t of reportTables(r)) parts.push("", `## ${t.title}`, "", t.note, "", markdownTable(t));
  parts.push(
    "",
    "## Runs",
    "",
    ...r.runs.map(
      (x) =>
        `- ${x.dir}: ${x.env}, ${x.tier}, ${x.model} / ${x.method}, ${x.cases} cases${x.trials > 1 ? ` (${x.trials} trials each)` : ""}; agent access ${x.agentAccess}, sandbox ${x.sandbox}; report level ${x.levels.join(" and ")}`,
    ),
  );
  return `${parts.join("\n")}\n`;
}
