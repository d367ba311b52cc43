// `microremed mcp`: the MCP server of `--remediate-method mcp:` on its own, for an agent you run
// yourself against a namespace (after `microremed inject`, say): over stdio (the default) or
// streamable HTTP on 127.0.0.1 (loopback Host and Origin only). Its tools act as the namespace's
// own ServiceAccount, which it makes from the kubeconfig it is given and removes at exit, as a
// run does (a kubeconfig that may not make one is used as is, if it cannot act outside the
// namespace). Playbooks and kubectl writes run in the sandbox; every call is appended to
// mcp-calls.jsonl in --dir as it is made.
import type { Command } from "commander";
import { usageError } from "../errors.js";
import type { AgentAccess } from "../identity/agent.js";
import { parseNonNegativeInt, parsePositive } from "../util/parse.js";
import type { McpOpts } from "./mcp-serve.js";

function parsePort(v: string): number {
  const port = parseNonNegativeInt(v, "--http", "0");
  if (port > 65535)
    throw usageError(
      `--http must be a TCP port (0 to 65535), got "${v}"`,
      "pass e.g. --http 0 for a free port",
    );
  return port;
}

function parseAccess(v: string): AgentAccess {
  if (v === "namespace" || v === "cluster-admin") return v;
  throw usageError(`unknown --agent-access "${v}"`, "pass --agent-access namespace or cluster-admin");
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
    .option(
      "--kubeconfig <file>",
      "an admin's kubeconfig, from which the namespace's confined identity is made (or one confined to it); default: $KUBECONFIG",
    )
    .option(
      "--agent-access <access>",
      "namespace (the tools act confined to the report's namespace) or cluster-admin, as for run",
      parseAccess,
      "namespace" as AgentAccess,
    )
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
      (v) => parsePositive(v, "--playbook-timeout", false, "300"),
      300,
    )
    .action(async (o: McpOpts) => {
      // the MCP SDK and the case tools load only for this command
      const { serveMcp } = await import("./mcp-serve.js");
      await serveMcp(o);
    });
}
