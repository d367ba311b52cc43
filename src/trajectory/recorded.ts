// What a case folder's conversation.json holds, read for the trajectory: the report, the
// conversation (with each model turn's time and usage where the runner stamped them) and the
// attempts. Read leniently, as src/report reads it: runs of older versions lack fields.
import { readFileSync } from "node:fs";
import type { ChatMessage } from "../llm/types.js";

/** An attempt as conversation.json keeps it; every field but the index may be missing in old runs. */
export interface RecordedAttempt {
  index: number;
  playbook?: string;
  execution?: {
    accepted?: boolean;
    ok?: boolean;
    exitCode?: number;
    timedOut?: boolean;
    durationMs?: number;
    output?: string;
    problems?: string[];
    tasks?: { name?: string; module?: string; status?: string; message?: string }[];
  };
  /** The method's own verification (ThinkRemed's Verification agent). */
  verdict?: { pass: boolean; reason?: string };
  problems?: string[];
  /** An external agent's process (cmd:, mcp:). */
  agent?: { exitCode?: number; timedOut?: boolean; durationMs?: number; cause?: string };
}

export interface RecordedCase {
  report?: unknown;
  conversation: ChatMessage[];
  attempts: RecordedAttempt[];
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === "object" && !Array.isArray(x);
const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** conversation.json of a case, or undefined where the case never reached its method. */
export function readRecorded(file: string): RecordedCase | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (!isObj(raw)) return undefined;
  const conversation = (Array.isArray(raw.conversation) ? raw.conversation : []).flatMap((m) =>
    isObj(m) && typeof m.role === "string" && ROLES.has(m.role)
      ? [{ ...m, content: typeof m.content === "string" ? m.content : "" } as ChatMessage]
      : [],
  );
  const attempts = (Array.isArray(raw.attempts) ? raw.attempts : []).flatMap((a, i) =>
    isObj(a) ? [{ ...a, index: typeof a.index === "number" ? a.index : i + 1 } as RecordedAttempt] : [],
  );
  return { report: raw.report, conversation, attempts };
}
