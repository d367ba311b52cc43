// The playbook runs of a case as ATIF system steps: what the Execution agent (the executor) did
// with each attempt's playbook, its task results, and the Verification agent's verdict where the
// method ran one (ThinkRemed). Each is placed after the agent step that handed the playbook over
// (a print_playbook call, or a message holding the playbook: a cmd: agent's stdout), or at the
// end when no step holds it (a module method that asked no model). An MCP agent's run_playbook
// call already has the execution as its observation: it gets no second step.
import type { AtifObservationResult } from "./atif.js";
import type { RecordedAttempt } from "./recorded.js";
import type { Draft } from "./steps.js";

/** Characters of ansible's output kept in a step (its end: errors and the recap are there). */
const OUTPUT_TAIL = 4000;

function summary(a: RecordedAttempt): string {
  const e = a.execution;
  if (!e) return "";
  const tail = (e.output ?? "").trimEnd();
  const status = !e.accepted
    ? `rejected before it ran: ${(e.problems ?? []).join("; ")}`
    : e.timedOut
      ? "timed out and was killed"
      : e.ok
        ? "finished without errors (exit code 0)"
        : `failed (exit code ${e.exitCode ?? "unknown"})`;
  const tasks = (e.tasks ?? []).map(
    (t) => `- ${t.name ?? "?"} [${t.module ?? "?"}]: ${t.status ?? "?"}${t.message ? ` ${t.message}` : ""}`,
  );
  return [
    `ansible-playbook ${status}${e.durationMs !== undefined ? ` in ${(e.durationMs / 1000).toFixed(1)} s` : ""}.`,
    ...(tasks.length ? ["Tasks:", ...tasks] : []),
    ...(tail ? ["Output (end):", tail.length > OUTPUT_TAIL ? tail.slice(-OUTPUT_TAIL) : tail] : []),
  ].join("\n");
}

/** Index of the step that handed over `playbook` (after `from`), and whether it ran it itself. */
function anchor(
  steps: Draft[],
  playbook: string,
  from: number,
): { at: number; ranItself: boolean } | undefined {
  const text = playbook.trim();
  for (let i = from; i < steps.length; i++) {
    const s = steps[i];
    if (s.source !== "agent") continue;
    const call = s.tool_calls?.find(
      (c) => typeof c.arguments.playbook === "string" && c.arguments.playbook.trim() === text,
    );
    if (call) return { at: i, ranItself: call.function_name === "run_playbook" };
    if (text && s.message.includes(text)) return { at: i, ranItself: false };
  }
  return undefined;
}

function executionStep(a: RecordedAttempt, timestamp: string | undefined): Draft {
  const results: AtifObservationResult[] = [{ content: summary(a) }];
  if (a.verdict)
    results.push({
      content: `Verification: ${a.verdict.pass ? "passed" : "failed"}: ${a.verdict.reason ?? ""}`.trim(),
    });
  const e = a.execution;
  return {
    source: "system",
    ...(timestamp ? { timestamp } : {}),
    message: `The Execution agent ran the playbook of attempt ${a.index}.`,
    observation: { results },
    extra: {
      attempt: a.index,
      playbook: a.playbook,
      execution: {
        accepted: e?.accepted,
        ok: e?.ok,
        exit_code: e?.exitCode,
        timed_out: e?.timedOut,
        duration_ms: e?.durationMs,
        tasks: e?.tasks ?? [],
      },
      ...(a.verdict ? { verdict: a.verdict } : {}),
    },
  };
}

/** The steps with a system step for each executed attempt, in place. */
export function withExecutions(steps: Draft[], attempts: RecordedAttempt[]): Draft[] {
  const inserts = new Map<number, Draft[]>();
  let from = 0;
  for (const a of attempts) {
    if (!a.execution || a.playbook === undefined) continue;
    const found = anchor(steps, a.playbook, from);
    if (found?.ranItself) {
      from = found.at + 1;
      continue;
    }
    const at = found ? found.at : steps.length - 1;
    if (found) from = found.at + 1;
    inserts.set(at, [...(inserts.get(at) ?? []), executionStep(a, steps[at]?.timestamp)]);
  }
  const out: Draft[] = [...(inserts.get(-1) ?? [])];
  for (const [i, s] of steps.entries()) out.push(s, ...(inserts.get(i) ?? []));
  return out;
}
