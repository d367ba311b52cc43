// Every MCP call of a case, in the order it came: the tool, its arguments, what it returned and
// when, kept by the runner (never by the agent) and written into the case's conversation as a
// probe's calls are: an assistant message with the tool call, then the tool's answer.
import type { ChatMessage } from "../llm/types.js";
import type { Refusal } from "./tools.js";

export interface McpCall {
  /** When the call came (ISO 8601). */
  at: string;
  tool: string;
  arguments: Record<string, unknown>;
  result: string;
  /** The tool threw (a defect of the harness, told to the agent as an error). */
  error?: boolean;
  /** The tool refused (told to the agent as an error, with the reason). */
  refused?: boolean;
  /**
   * The client gave up on the call before its answer (it cancelled it, or went away): recorded
   * then, with no result; what the tool was doing is stopped.
   */
  abandoned?: boolean;
  durationMs: number;
}

export class CallLog {
  readonly calls: McpCall[] = [];

  /** `onCall`: told of each call as it is recorded (`microremed mcp` appends it to its file). */
  constructor(private readonly onCall?: (c: McpCall) => void) {}

  async record(
    tool: string,
    args: Record<string, unknown>,
    run: () => Promise<string | Refusal>,
    signal?: AbortSignal,
  ): Promise<{ text: string; error: boolean }> {
    const started = Date.now();
    const at = new Date(started).toISOString();
    const keep = (call: McpCall) => {
      this.calls.push(call);
      this.onCall?.(call);
    };
    let text: string;
    let error = false;
    let refused = false;
    const answer = run().then(
      (a) => a,
      (e: Error) => e,
    );
    const gaveUp = new Promise<"abandoned">((res) => {
      if (signal?.aborted) res("abandoned");
      signal?.addEventListener("abort", () => res("abandoned"), { once: true });
    });
    const first = await Promise.race([answer, gaveUp]);
    if (first === "abandoned") {
      keep({ at, tool, arguments: args, result: "", abandoned: true, durationMs: Date.now() - started });
      return { text: "abandoned by the client", error: true };
    }
    if (first instanceof Error) {
      text = `the tool failed: ${first.message}`;
      error = true;
    } else {
      refused = typeof first !== "string";
      text = typeof first === "string" ? first : first.refused;
    }
    keep({
      at,
      tool,
      arguments: args,
      result: text,
      durationMs: Date.now() - started,
      ...(error ? { error } : {}),
      ...(refused ? { refused } : {}),
    });
    return { text, error: error || refused };
  }

  /** The calls as conversation messages (the trace's shape): a call, then its answer. */
  messages(): ChatMessage[] {
    return this.calls.flatMap((c, i) => {
      const id = `mcp-${i + 1}`;
      return [
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id, name: c.tool, arguments: JSON.stringify(c.arguments) }],
          at: c.at,
        },
        { role: "tool", name: c.tool, toolCallId: id, content: c.result },
      ] satisfies ChatMessage[];
    });
  }
}
