// --format html: one self-contained page (inline CSS, SVG and the leaderboard's small sorting
// script; no external script, no external request),
// so it can be mailed, attached to a CI run or opened from disk and look the same everywhere.
import type { Report } from "./aggregate.js";
import { costSuccessChart, successByTierChart } from "./charts.js";
import { LEADERBOARD_CSS, leaderboardHtml } from "./leaderboard-html.js";
import { successByLevelChart } from "./levels-chart.js";
import { reasonsChart } from "./reasons-chart.js";
import { reliabilityChart } from "./reliability-chart.js";
import { levelsText, seriesCount } from "./runs.js";
import { esc } from "./svg.js";
import type { Table } from "./table-text.js";
import { reportTables } from "./tables.js";
import type { CaseTrace } from "./trace.js";
import { TRACE_CSS, traceHtml } from "./trace-html.js";

/** The traces of one run, for the cases section. */
export interface RunTraces {
  run: string;
  label: string;
  traces: CaseTrace[];
}

const CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --band: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: #fff; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 48px; }
h1 { font-size: 28px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 6px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
p.lead, p.note { color: var(--muted); margin: 0 0 12px; }
figure { margin: 16px 0 28px; }
figcaption { color: var(--muted); font-size: 13px; }
svg.chart { max-width: 100%; height: auto; display: block; font-family: inherit; }
svg .chart-title { font-size: 18px; font-weight: 600; fill: var(--ink); }
svg .subtitle, svg .na { font-size: 12px; fill: var(--muted); }
svg .tick { font-size: 12px; fill: var(--muted); }
svg .tier { font-size: 14px; fill: var(--ink); font-weight: 600; }
svg .axis-title { font-size: 13px; fill: var(--ink); }
svg .grid { stroke: #eaeef2; }
svg .axis { stroke: #8c959f; }
svg .whisker line { stroke: #1b1f24; stroke-width: 1.5; }
svg .value { font-size: 11px; fill: var(--ink); }
svg .legend text, svg .point-label { font-size: 13px; fill: var(--ink); }
svg .point { stroke: #fff; stroke-width: 2; }
svg .point-label, svg .value { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0 8px; min-width: 60%; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: var(--band); font-weight: 600; white-space: normal; vertical-align: bottom; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fbfcfd; }
ul.runs { font-size: 13px; color: var(--muted); }
`;

function htmlTable(t: Table): string {
  const cls = (i: number) => (t.numeric[i] ? ' class="num"' : "");
  const head = t.head.map((h, i) => `<th scope="col"${cls(i)}>${esc(h)}</th>`).join("");
  const rows = t.rows
    .map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${esc(c)}</td>`).join("")}</tr>`)
    .join("\n");
  return `<section id="${t.id}"><h2>${esc(t.title)}</h2><p class="note">${esc(t.note)}</p><div class="table-wrap"><table><caption class="sr-only">${esc(t.title)}</caption><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table></div></section>`;
}

function tracesSection(runs: RunTraces[]): string {
  if (!runs.length) return "";
  const n = runs.reduce((k, x) => k + x.traces.length, 0);
  const parts = runs
    .filter((x) => x.traces.length)
    .map(
      (x, i) =>
        `<h3>${esc(x.label)}</h3>${x.traces.map((t) => traceHtml(t, `case-${i + 1}-${t.record.index}`)).join("\n")}`,
    );
  return `<section id="cases"><h2>Cases</h2><p class="note">${esc(`${n} case${n === 1 ? "" : "s"}: what the model was told, what it said and ran, what the checks measured. Open a case to read its trace.`)}</p>${parts.join("\n")}</section>`;
}

export function renderHtml(r: Report, traces: RunTraces[] = []): string {
  const cases = r.runs.reduce((n, x) => n + x.cases, 0);
  const lead = `${r.runs.length} run${r.runs.length === 1 ? "" : "s"}, ${cases} cases; ${seriesCount(r)}; tiers: ${r.tiers.join(", ")}. ${levelsText(r)} Generated ${r.generatedAt}.`;
  const runs = r.runs
    .map(
      (x) =>
        `<li>${esc(x.dir)}: ${esc(`${x.env}, ${x.tier}, ${x.model} / ${x.method}, ${x.cases} cases; agent access ${x.agentAccess}, sandbox ${x.sandbox}; report level ${x.levels.join(" and ")}`)}</li>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MicroRemed report</title>
<style>${CSS}${TRACE_CSS}${LEADERBOARD_CSS}</style>
</head>
<body>
<main>
<h1>MicroRemed report</h1>
<p class="lead">${esc(lead)}</p>
${leaderboardHtml(r.leaderboard)}
<section id="charts">
<h2>Charts</h2>
<figure>${successByTierChart(r)}<figcaption>Success rate per tier for each model and method; hover a bar for its counts.</figcaption></figure>
${successByLevelChart(r) ? `<figure>${successByLevelChart(r)}<figcaption>Success by how much the method was told (--report), and how often it found the fault's objects.</figcaption></figure>\n` : ""}<figure>${costSuccessChart(r)}<figcaption>Up and to the left is better: more repairs for less.</figcaption></figure>
${r.reliability ? `<figure>${reliabilityChart(r)}<figcaption>How reliably each model and method repairs a case it met k times: pass@k counts a case when any trial succeeded, pass^k only when all did; hover a bar for its interval.</figcaption></figure>\n` : ""}<figure>${reasonsChart(r)}<figcaption>Why the cases that did not succeed ended as they did; hover a segment for its count and the code's meaning.</figcaption></figure>
</section>
${reportTables(r).map(htmlTable).join("\n")}
${tracesSection(traces)}
<section id="runs"><h2>Runs</h2><ul class="runs">${runs}</ul></section>
</main>
</body>
</html>
`;
}
