// ansible's results as data: the JSON lines our callback plugin (ansible/callback_plugins/
// task_results.py) writes, one per task and host, read back into TaskResult objects.
import { readCaseFile } from "../sandbox/case-files.js";

export type TaskStatus = "ok" | "changed" | "failed" | "skipped" | "unreachable";

export interface TaskResult {
  name: string;
  /** The module (ansible's action), e.g. kubernetes.core.k8s or ansible.builtin.shell. */
  module: string;
  host: string;
  status: TaskStatus;
  /** msg, or stderr where a task failed; empty when the module said nothing. */
  message: string;
  durationMs: number;
  /** A failure the playbook chose to ignore (ignore_errors). */
  ignored?: boolean;
}

const STATUSES = new Set<string>(["ok", "changed", "failed", "skipped", "unreachable"]);

function toTask(x: unknown): TaskResult | undefined {
  if (!x || typeof x !== "object") return undefined;
  const o = x as Record<string, unknown>;
  if (typeof o.status !== "string" || !STATUSES.has(o.status)) return undefined;
  return {
    name: String(o.name ?? ""),
    module: String(o.module ?? ""),
    host: String(o.host ?? ""),
    status: o.status as TaskStatus,
    message: String(o.message ?? ""),
    durationMs: typeof o.durationMs === "number" ? o.durationMs : 0,
    ...(o.ignored === true ? { ignored: true } : {}),
  };
}

/** The tasks of one playbook run; lines that are not ours (a playbook may write there) are skipped. */
export function readTasks(path: string): TaskResult[] {
  const out: TaskResult[] = [];
  for (const line of readCaseFile(path).split("\n")) {
    if (!line.trim()) continue;
    try {
      const t = toTask(JSON.parse(line));
      if (t) out.push(t);
    } catch {
      // a torn last line of a killed run
    }
  }
  return out;
}

/** The first failure the playbook did not choose to ignore. */
export function firstFailure(tasks: TaskResult[]): TaskResult | undefined {
  return tasks.find((t) => (t.status === "failed" && !t.ignored) || t.status === "unreachable");
}
