// Every MCP call of a case, in the order it came: the tool, its arguments, what it returned and
// when, kept by the runner (never by the agent) and written into the case's conversation as a
// probe's calls are: an assistant message with the tool call, then the tool's answer.
import type { ChatMessage } from "../models/types.js";

export interface McpCall {
  /** When the call came (ISO 8601). */
  at: string;
  tool: string;
  arguments: Record<string, unknown>;
  result: string;
  /** The tool threw (a defect of the harness, told to the agent as an error). */
  error?: boolean;
  durationMs: number;
}

export class CallLog {
  readonly calls: McpCall[] = [];

  /** `onCall`: told of each call as it is recorded (`microremed mcp` appends it to its file). */
  constructor(private readonly onCall?: (c: McpCall) => void) {}

  async record(
    tool: string,
    args: Record<string, unknown>,
    run: () => Promise<string>,
  ): Promise<{ text: string; error: boolean }> {
    const started = Date.now();
    const at = new Date(started).toISOString();
    let text: string;
    let error = false;
    try {
      text = await run();
    } catch (e) {
      text = `the tool failed: ${(e as Error).message}`;
      error = true;
    }
    const call: McpCall = {
      at,
      tool,
      arguments: args,
      result: text,
      durationMs: Date.now() - started,
      ...(error ? { error } : {}),
    };
    this.calls.push(call);
    this.onCall?.(call);
    return { text, error };
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
