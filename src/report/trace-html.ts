// A case's trace in the HTML report: one <details> per case, closed, with nested <details> for the
// diagnosis report, the conversation, each attempt (playbook, tasks, verdict), the verdicts, the
// phase timeline and the tokens, so a run of 80 cases stays a page one can scroll. No script.
import { esc } from "./svg.js";
import type { CaseTrace, TraceAttempt, TraceMessage } from "./trace.js";
import { PHASES, phaseRows, reasonLine, usageRows, verdictRows } from "./trace-text.js";

export const TRACE_CSS = `
details.case { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.case > summary { cursor: pointer; font-weight: 600; }
details.case details { margin: 6px 0 6px 8px; }
details.case summary .code { font-family: ui-monospace, monospace; background: var(--band); padding: 0 4px; border-radius: 3px; }
details.case pre { background: var(--band); padding: 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
details.case .msg { border-left: 3px solid var(--line); padding-left: 8px; margin: 6px 0; }
details.case .msg .role { font-size: 12px; color: var(--muted); text-transform: uppercase; }
details.case td { white-space: normal; }
.timeline { display: flex; height: 18px; max-width: 720px; border-radius: 3px; overflow: hidden; margin: 4px 0; }
.timeline span { display: block; height: 100%; }
.legend-inline span { display: inline-block; margin-right: 12px; font-size: 12px; }
.legend-inline i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
#diff td { white-space: normal; }
`;

const PHASE_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#999999"];

const MAX_OUTPUT = 20_000;
const pre = (s: string) => `<pre>${esc(s)}</pre>`;
const fold = (title: string, body: string, cls = "") =>
  `<details${cls ? ` class="${cls}"` : ""}><summary>${title}</summary>${body}</details>`;
const table = (head: string[], rows: string[][]) =>
  `<div class="table-wrap"><table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
    .join("")}</tbody></table></div>`;

/** A tool call as a reader wants it: a probe's command, a playbook's text, other arguments as JSON. */
function toolCall(c: TraceMessage["toolCalls"][number]): string {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(c.arguments) as Record<string, unknown>;
  } catch {
    return `<p>call <b>${esc(c.name)}</b></p>${pre(c.arguments)}`;
  }
  if (typeof args.command === "string") return `<p>call <b>${esc(c.name)}</b></p>${pre(`$ ${args.command}`)}`;
  if (typeof args.playbook === "string") return `<p>call <b>${esc(c.name)}</b></p>${pre(args.playbook)}`;
  return `<p>call <b>${esc(c.name)}</b></p>${pre(JSON.stringify(args, null, 2))}`;
}

function messageHtml(m: TraceMessage): string {
  const role = m.role === "tool" ? `tool result${m.tool ? ` (${m.tool})` : ""}` : m.role;
  const body = [m.content ? pre(m.content) : "", ...m.toolCalls.map(toolCall)].join("");
  return `<div class="msg msg-${esc(m.role)}"><div class="role">${esc(role)}</div>${body}</div>`;
}

function attemptHtml(a: TraceAttempt): string {
  const e = a.execution;
  const parts: string[] = [];
  if (a.problems.length)
    parts.push(`<p>problems:</p><ul>${a.problems.map((p) => `<li>${esc(p)}</li>`).join("")}</ul>`);
  if (a.playbook) parts.push(fold("Playbook", pre(a.playbook), "playbook"));
  if (e) {
    parts.push(
      `<p>execution: ${esc(
        `${e.accepted ? "accepted" : "not accepted"}, ${e.ok ? "ran without error" : "failed"}${e.timedOut ? ", timed out" : ""}, exit code ${e.exitCode ?? "-"}${e.durationMs !== undefined ? `, ${(e.durationMs / 1000).toFixed(1)} s` : ""}`,
      )}</p>`,
    );
    if (e.tasks?.length)
      parts.push(
        table(
          ["task", "module", "status", "message", "ms"],
          e.tasks.map((t) => [
            t.name ?? "",
            t.module ?? "",
            t.status,
            t.message ?? "",
            String(t.durationMs ?? ""),
          ]),
        ),
      );
    // ansible's output may run to 200 kB: its end (where the failure is) keeps 80 traces readable
    if (e.output)
      parts.push(
        fold(
          "ansible output",
          pre(
            e.output.length > MAX_OUTPUT
              ? `[… ${e.output.length - MAX_OUTPUT} characters before; the whole output is in playbook-${a.index}.log]\n${e.output.slice(-MAX_OUTPUT)}`
              : e.output,
          ),
        ),
      );
  }
  if (a.verdict)
    parts.push(
      `<p>the method's verification: ${esc(a.verdict.pass ? "passed" : "failed")}: ${esc(a.verdict.reason)}</p>`,
    );
  return fold(
    `Attempt ${a.index}${a.reason ? `: <span class="code">${esc(a.reason.code)}</span> ${esc(a.reason.detail)}` : ""}`,
    parts.join(""),
    "attempt",
  );
}

function timeline(t: CaseTrace): string {
  const rows = phaseRows(t.record.phases);
  const total = rows.reduce((n, [, ms]) => n + ms, 0);
  if (!total) return "<p>no phase times recorded</p>";
  const bar = rows
    .map(([p, ms]) => {
      const c = PHASE_COLOURS[PHASES.indexOf(p) % PHASE_COLOURS.length];
      return `<span style="width:${((100 * ms) / total).toFixed(2)}%;background:${c}" title="${esc(`${p} ${ms} ms`)}"></span>`;
    })
    .join("");
  const legend = rows
    .map(
      ([p, ms]) =>
        `<span><i style="background:${PHASE_COLOURS[PHASES.indexOf(p) % PHASE_COLOURS.length]}"></i>${esc(`${p} ${(ms / 1000).toFixed(1)} s`)}</span>`,
    )
    .join("");
  return `<div class="timeline" role="img" aria-label="phase timeline">${bar}</div><div class="legend-inline">${legend}</div>`;
}

/** Short fields on one line each, multi-line ones (the runtime context, the inventory) as blocks. */
function diagnosisHtml(d: Record<string, unknown>): string {
  const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  const entries = Object.entries(d);
  const short = entries.filter(([, v]) => !text(v).includes("\n"));
  const long = entries.filter(([, v]) => text(v).includes("\n"));
  return `<ul>${short.map(([k, v]) => `<li><b>${esc(k)}</b>: ${esc(text(v))}</li>`).join("")}</ul>${long
    .map(([k, v]) => `<p><b>${esc(k)}</b></p>${pre(text(v))}`)
    .join("")}`;
}

export function traceHtml(t: CaseTrace, anchor: string): string {
  const r = t.record;
  const verdicts = verdictRows(r).map((v) => [v.check, v.found, v.reason, JSON.stringify(v.measurements)]);
  const summary = `Case ${r.index} · ${esc(r.failure)} → ${esc(r.target)} · ${esc(r.status)}${t.reason ? ` · <span class="code">${esc(t.reason.code)}</span> ${esc(t.reason.detail)}` : ""}`;
  const body = [
    `<p>${esc(reasonLine(t))}</p>`,
    t.diagnosis ? fold("Diagnosis report", diagnosisHtml(t.diagnosis)) : "",
    t.messages.length
      ? fold(
          `Conversation (${t.messages.length} messages)`,
          t.messages.map(messageHtml).join(""),
          "conversation",
        )
      : "",
    ...t.attempts.map(attemptHtml),
    // playbook files the attempts do not already show (a record without conversation.json)
    ...(t.attempts.some((a) => a.playbook)
      ? []
      : t.playbooks.map((p) => fold(esc(p.name), pre(p.text), "playbook"))),
    fold("Verdicts", table(["check", "verdict", "reason", "measurements"], verdicts)),
    fold("Phases", timeline(t)),
    fold("Tokens and cost", table(["role", "input", "output", "cost (USD)"], usageRows(r))),
    r.errors.length ? fold("Errors", pre(r.errors.join("\n"))) : "",
  ].join("");
  return `<details class="case" id="${esc(anchor)}"><summary>${summary}</summary>${body}</details>`;
}
