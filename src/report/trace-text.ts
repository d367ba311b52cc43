// A case's trace as terminal text (`microremed show`), and the small pieces the HTML trace shares:
// the phases in order, the verdicts, the tokens per role, the one-line outcome.

import type { CaseRecord, Phases } from "../runlog/records.js";
import type { CaseTrace, TraceMessage } from "./trace.js";
import { levelLines } from "./trace-levels.js";

export const PHASES: string[] = ["inject", "confirm", "method", "execute", "settle", "verify", "restore"];

/** Phases with a recorded time, in the order a case runs them (execute is part of method). */
export function phaseRows(p: Phases): [string, number][] {
  const at = p as Record<string, number | undefined>;
  return PHASES.filter((k) => k !== "execute" && typeof at[k] === "number").map((k) => [k, at[k] as number]);
}

/** The case's checks in the order they ran: whether the fault showed, then each verdict. */
export function verdictRows(
  r: CaseRecord,
): { check: string; found: string; reason: string; measurements: object }[] {
  const { injection, reference, health } = r.verdicts;
  const row = (check: string, found: string, v: { reason: string; measurements?: object }) => ({
    check,
    found,
    reason: v.reason,
    measurements: v.measurements ?? {},
  });
  return [
    ...(injection
      ? [row("injection", injection.faultShown ? "fault shown" : "fault not shown", injection)]
      : []),
    ...(reference ? [row("reference", reference.pass ? "pass" : "fail", reference)] : []),
    ...(health ? [row("health", health.pass ? "pass" : "fail", health)] : []),
  ];
}

const usd = (x: number | undefined) => (x ? x.toFixed(4) : "-");

export function usageRows(r: CaseRecord): string[][] {
  const rows = Object.entries(r.usageByRole ?? {}).map(([role, u]) => [
    role,
    String(u.inputTokens),
    String(u.outputTokens),
    usd(u.costUsd),
  ]);
  rows.push(["all", String(r.tokens.inputTokens), String(r.tokens.outputTokens), usd(r.tokens.costUsd)]);
  return rows;
}

export function reasonLine(t: CaseTrace): string {
  const r = t.record;
  const head = `${r.model} / ${r.method}: ${r.status}, ${r.attempts} attempt${r.attempts === 1 ? "" : "s"}, ${r.probeRounds} probe rounds${r.remediationSeconds !== undefined ? `, ${r.remediationSeconds} s of cluster time` : ""}`;
  return t.reason ? `${head}. Reason: ${t.reason.code}: ${t.reason.detail}` : `${head}.`;
}

const indent = (s: string, by = "    ") =>
  s
    .replace(/\s+$/, "")
    .split("\n")
    .map((l) => `${by}${l}`)
    .join("\n");

function callText(c: TraceMessage["toolCalls"][number]): string {
  try {
    const args = JSON.parse(c.arguments) as Record<string, unknown>;
    if (typeof args.command === "string") return `  → ${c.name}: $ ${args.command}`;
    if (typeof args.playbook === "string") return `  → ${c.name}:\n${indent(args.playbook)}`;
  } catch {
    // not JSON: shown as the model sent it
  }
  return `  → ${c.name}: ${c.arguments}`;
}

/** The trace as `show` prints it: sections in the order a case runs. */
export function formatTrace(t: CaseTrace, opts: { full?: boolean } = {}): string {
  const r = t.record;
  const cut = (s: string, n = 2000) =>
    opts.full || s.length <= n
      ? s
      : `${s.slice(0, n)}\n[… ${s.length - n} more characters; --full shows all]`;
  const out = [`Case ${r.index}: ${r.failure} → ${r.target}`, reasonLine(t), `folder: ${t.caseDir}`, ""];
  if (t.diagnosis) {
    out.push("== Diagnosis report");
    for (const [k, v] of Object.entries(t.diagnosis))
      out.push(`${k}: ${cut(typeof v === "string" ? v : JSON.stringify(v))}`);
    out.push("");
  }
  if (t.messages.length) {
    out.push(`== Conversation (${t.messages.length} messages)`);
    for (const m of t.messages) {
      out.push(`[${m.role}${m.role === "tool" && m.tool ? ` ${m.tool}` : ""}]`);
      if (m.content) out.push(indent(cut(m.content, m.role === "system" ? 400 : 2000)));
      for (const c of m.toolCalls) out.push(callText(c));
    }
    out.push("");
  }
  for (const a of t.attempts) {
    out.push(`== Attempt ${a.index}${a.reason ? `: ${a.reason.code}: ${a.reason.detail}` : ""}`);
    for (const p of a.problems) out.push(`problem: ${p}`);
    if (a.playbook) out.push("playbook:", indent(a.playbook));
    const e = a.execution;
    if (e) {
      out.push(
        `execution: ${e.accepted ? "accepted" : "not accepted"}, ${e.ok ? "ran without error" : "failed"}${e.timedOut ? ", timed out" : ""}, exit code ${e.exitCode ?? "-"}${e.durationMs !== undefined ? `, ${(e.durationMs / 1000).toFixed(1)} s` : ""}`,
      );
      for (const task of e.tasks ?? [])
        out.push(
          `  task ${task.status.padEnd(11)} ${task.name ?? "?"}${task.module ? ` (${task.module})` : ""}${task.message ? `: ${task.message.replace(/\s+/g, " ").slice(0, 300)}` : ""}`,
        );
      if (!e.tasks && e.output) out.push("ansible output:", indent(cut(e.output)));
    }
    if (a.verdict)
      out.push(`the method's verification: ${a.verdict.pass ? "passed" : "failed"}: ${a.verdict.reason}`);
    out.push("");
  }
  if (!t.attempts.some((a) => a.playbook))
    for (const p of t.playbooks) out.push(`== ${p.name}`, indent(p.text), "");
  out.push(...levelLines(r), "== Verdicts");
  for (const v of verdictRows(r))
    out.push(
      `${v.check}: ${v.found}: ${v.reason}${Object.keys(v.measurements).length ? `\n    measurements: ${JSON.stringify(v.measurements)}` : ""}`,
    );
  out.push("", "== Phases (wall ms)");
  out.push(
    phaseRows(r.phases)
      .map(([p, ms]) => `${p} ${ms}`)
      .join(", ") || "none recorded",
  );
  out.push(
    "",
    "== Tokens and cost",
    ...usageRows(r).map((row) => `${row[0]}: ${row[1]} in, ${row[2]} out, $${row[3]}`),
  );
  if (r.errors.length) out.push("", "== Errors", ...r.errors);
  return `${out.join("\n")}\n`;
}
