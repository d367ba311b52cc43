// `microremed mcp`: the MCP server of `--remediate-method mcp:` on its own, for an agent you run
// yourself against a namespace (after `microremed inject`, say): over stdio (the default) or
// streamable HTTP on 127.0.0.1, acting as the kubeconfig it is given and nothing more (give it a
// confined one: a case's ServiceAccount). Playbooks and kubectl writes run in the sandbox; every
// call is appended to mcp-calls.jsonl in --dir as it is made.
import type { Command } from "commander";
import { usageError } from "../errors.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";
import type { McpOpts } from "./mcp-serve.js";

function parsePort(v: string): number {
  const port = parseNonNegativeInt(v, "--http");
  if (port > 65535)
    throw usageError(
      `--http must be a TCP port (0 to 65535), got "${v}"`,
      "pass e.g. --http 0 for a free port",
    );
  return port;
}

export function registerMcp(program: Command) {
  program
    .command("mcp")
    .description(
      "Serve a case's MCP tools (report, kubectl, run_playbook, submit) over stdio or streamable HTTP",
    )
    .requiredOption(
      "--report <file>",
      "the diagnosis report, of any --report level (a case's conversation.json, or the report as JSON)",
    )
    .option("--kubeconfig <file>", "the identity the tools act as (default: $KUBECONFIG)")
    .option(
      "--http <port>",
      "serve streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio (0: a free port)",
      parsePort,
    )
    .option("--dir <dir>", "where playbooks, their logs and mcp-calls.jsonl go", ".")
    .option("--sandbox <mode>", "bwrap or none, as for run", "bwrap")
    .option(
      "--playbook-timeout <s>",
      "seconds a playbook or a kubectl write may run",
      (v) => parsePositive(v, "--playbook-timeout"),
      300,
    )
    .action(async (o: McpOpts) => {
      // the MCP SDK and the case tools load only for this command
      const { serveMcp } = await import("./mcp-serve.js");
      await serveMcp(o);
    });
}
