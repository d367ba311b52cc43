// `microremed mcp`: the MCP server of `--remediate-method mcp:` on its own, for an agent you run
// yourself against a namespace (after `microremed inject`, say): over stdio (the default) or
// streamable HTTP on 127.0.0.1, acting as the kubeconfig it is given and nothing more (give it a
// confined one: a case's ServiceAccount). Playbooks and kubectl writes run in the sandbox; every
// call is appended to mcp-calls.jsonl in --dir as it is made.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Command } from "commander";
import { AnsibleExecutor } from "../ansible/executor.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import { MicroRemedError } from "../errors.js";
import { CallLog, createMcpServer, listenMcp } from "../mcp/index.js";
import { caseTools } from "../methods/mcp.js";
import type { Attempt } from "../methods/types.js";
import { createProbe, probeLimits } from "../probe/index.js";
import { SandboxLauncher } from "../runner/launcher.js";
import { parseSandboxMode, requireSandbox } from "../sandbox/support.js";
import { packageRoot } from "../util/paths.js";

interface Opts {
  kubeconfig?: string;
  report: string;
  http?: string;
  dir: string;
  sandbox: string;
  playbookTimeout: string;
}

function loadReport(file: string): DiagnosisReport {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new MicroRemedError(
      "E_CONFIG",
      `cannot read the report ${file}: ${(e as Error).message}`,
      "pass a JSON file",
    );
  }
  // a case's conversation.json holds the report under "report"
  const r = (typeof doc.report === "object" && doc.report ? doc.report : doc) as Record<string, unknown>;
  const missing = ["namespace", "service", "env", "category", "runtimeContext", "inventory"].filter(
    (k) => typeof r[k] !== "string",
  );
  if (missing.length)
    throw new MicroRemedError(
      "E_CONFIG",
      `${file} is not a diagnosis report (no ${missing.join(", ")})`,
      "pass a case's conversation.json, or its report as JSON",
    );
  return r as unknown as DiagnosisReport;
}

export function registerMcp(program: Command) {
  program
    .command("mcp")
    .description(
      "Serve a case's MCP tools (report, kubectl, run_playbook, submit) over stdio or streamable HTTP",
    )
    .requiredOption(
      "--report <file>",
      "the diagnosis report (a case's conversation.json, or the report as JSON)",
    )
    .option("--kubeconfig <file>", "the identity the tools act as (default: $KUBECONFIG)")
    .option(
      "--http <port>",
      "serve streamable HTTP on 127.0.0.1:<port>/mcp instead of stdio (0: a free port)",
    )
    .option("--dir <dir>", "where playbooks, their logs and mcp-calls.jsonl go", ".")
    .option("--sandbox <mode>", "bwrap or none, as for run", "bwrap")
    .option("--playbook-timeout <s>", "seconds a playbook or a kubectl write may run", "300")
    .action(async (o: Opts) => {
      const kubeconfig = o.kubeconfig ?? process.env.KUBECONFIG;
      if (!kubeconfig)
        throw new MicroRemedError(
          "E_CONFIG",
          "no kubeconfig for the tools",
          "pass --kubeconfig or set KUBECONFIG",
        );
      const mode = parseSandboxMode(o.sandbox);
      await requireSandbox(mode);
      const report = loadReport(o.report);
      const caseDir = resolve(o.dir);
      mkdirSync(caseDir, { recursive: true });
      const timeoutMs = Number(o.playbookTimeout) * 1000;
      const limits = probeLimits({});
      const probe = createProbe({
        kubeconfig,
        namespace: report.namespace,
        timeoutMs: limits.timeoutSeconds * 1000,
        maxOutput: limits.maxOutput,
        maxCommands: limits.maxCommands,
        sandbox: mode,
      });
      const attempt: Attempt = { index: 1, problems: [], probeRounds: 0 };
      const tools = caseTools(
        {
          report,
          caseDir,
          executor: new AnsibleExecutor({
            inventory: resolve(packageRoot(), "inventory.ini"),
            kubeconfig,
            timeoutMs,
            sandbox: mode,
          }),
          launcher: new SandboxLauncher({ mode, kubeconfig, caseDir, timeoutMs }),
          prober: { probe },
        },
        attempt,
      );
      const calls = resolve(caseDir, "mcp-calls.jsonl");
      writeFileSync(calls, "");
      const log = new CallLog((c) => appendFileSync(calls, `${JSON.stringify(c)}\n`));
      const make = () => createMcpServer(tools, log, "0.1.0");
      if (o.http === undefined) {
        await make().connect(new StdioServerTransport());
        return;
      }
      const listener = await listenMcp(make, { port: Number(o.http) });
      process.stderr.write(`microremed mcp: serving ${listener.url} as ${kubeconfig}\n`);
      await new Promise<void>((res) => process.once("SIGINT", res).once("SIGTERM", res));
      await listener.close();
    });
}
