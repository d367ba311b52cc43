// The MCP server of one case (the official SDK's McpServer): the tools of tools.ts over the case,
// each call recorded in the case's log before the agent sees its answer.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { z } from "zod";
import type { CallLog } from "./record.js";
import { AFTER_SUBMIT, type McpCase, TOOLS, type ToolSpec } from "./tools.js";

// a name an on-call engineer's own server could have: nothing in what the agent sees names the harness
export const SERVER_NAME = "cluster";

function register<S extends z.ZodRawShape>(server: McpServer, spec: ToolSpec<S>, c: McpCase, log: CallLog) {
  const description = typeof spec.description === "string" ? spec.description : spec.description(c);
  server.registerTool(spec.name, { description, inputSchema: spec.input }, (async (
    args: z.infer<z.ZodObject<S>>,
    extra: { signal: AbortSignal },
  ) => {
    // submit is the agent's last act: what it would change afterwards would be changed under the
    // verification, so the tools that act refuse from then on (the refusal is recorded too)
    const { text, error } = await log.record(
      spec.name,
      args as Record<string, unknown>,
      async () => (spec.acts && c.submission() ? { refused: AFTER_SUBMIT } : spec.run(c, args, extra.signal)),
      // the client cancelled the call or went away: the call is recorded as abandoned, the tool stopped
      extra.signal,
    );
    // a refusal or a failure is an error result (MCP's isError), so a client can tell it from an answer
    return { content: [{ type: "text" as const, text }], ...(error ? { isError: true } : {}) };
  }) as Parameters<McpServer["registerTool"]>[2]);
}

/** A new server over the case (one per MCP session; they share the case and its log). */
export function createMcpServer(c: McpCase, log: CallLog, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    {
      instructions: `Tools to repair an incident in the Kubernetes namespace ${c.namespace}, acting as your on-call identity: read the report (get_report), look and act (kubectl, run_playbook), then call submit once and stop.`,
    },
  );
  for (const spec of TOOLS) register(server, spec as ToolSpec<z.ZodRawShape>, c, log);
  return server;
}
