// The reflection turn after a failed attempt: what the Execution agent saw (status and the end of
// the output, where ansible prints errors and its recap) and what the Verification agent found.
import type { Attempt } from "../types.js";
import type { ThinkRemedConfig } from "./config.js";

export function tail(text: string, max: number): string {
  const t = text.trimEnd();
  return t.length <= max ? t : `[... ${t.length - max} earlier characters left out]\n${t.slice(-max)}`;
}

function status(a: Attempt): string {
  const e = a.execution;
  if (!e) return `no playbook was submitted (${a.problems.join("; ")})`;
  if (!e.accepted) return `the playbook was rejected before it ran: ${e.problems.join("; ")}`;
  if (e.timedOut) return "ansible-playbook timed out and was killed";
  return e.ok
    ? "ansible-playbook finished without errors (exit code 0)"
    : `ansible-playbook failed (exit code ${e.exitCode ?? "unknown"})`;
}

export function reflection(cfg: ThinkRemedConfig, a: Attempt): string {
  const verdict = a.verdict
    ? `${a.verdict.pass ? "passed" : "failed"}: ${a.verdict.told ?? a.verdict.reason}`
    : "not run, because nothing was executed";
  return cfg.prompt("reflection", {
    attempt: String(a.index),
    maxAttempts: String(cfg.maxAttempts),
    status: status(a),
    output: tail(a.execution?.output ?? "", cfg.reflectionOutputChars) || "(no output)",
    verdict,
  });
}
