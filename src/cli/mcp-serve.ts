// `microremed mcp` itself, loaded only when that command runs (cli/mcp.ts declares it): the case's
// tools over stdio or streamable HTTP, a call log in --dir.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { AnsibleExecutor } from "../ansible/executor.js";
import { REPORT_LEVELS, type ReportLevel } from "../diagnosis/levels.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import { MicroRemedError } from "../errors.js";
import { CallLog, createMcpServer, listenMcp } from "../mcp/index.js";
import { caseTools } from "../methods/mcp.js";
import type { Attempt } from "../methods/types.js";
import { createProbe, probeLimits } from "../probe/index.js";
import { SandboxLauncher } from "../runner/launcher.js";
import { parseSandboxMode, requireSandbox } from "../sandbox/support.js";
import { packageRoot } from "../util/paths.js";
import { packageVersion } from "../util/version.js";

export interface McpOpts {
  kubeconfig?: string;
  report: string;
  /** The port of --http (0: a free one); stdio without it. */
  http?: number;
  dir: string;
  sandbox: string;
  /** Seconds. */
  playbookTimeout: number;
}

/** The fields every report has, and what its level adds (src/diagnosis/build.ts reportAt). */
const COMMON = ["namespace", "env", "runtimeContext", "inventory"];
const BY_LEVEL: Record<ReportLevel, string[]> = {
  full: ["service", "category"],
  service: ["service"],
  // an alert in place of a service: what monitoring paged with
  symptom: ["alert"],
};

/** A report of any level, from a case's conversation.json or the report on its own. */
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
  // reports written before levels have none: they are full ones
  const level = r.level ?? "full";
  if (typeof level !== "string" || !(REPORT_LEVELS as readonly string[]).includes(level))
    throw new MicroRemedError(
      "E_CONFIG",
      `${file} is a report of an unknown level ${JSON.stringify(level)}`,
      `a report's level is ${REPORT_LEVELS.join(", ")} (or none, for full): pass a case's conversation.json`,
    );
  const missing = [...COMMON, ...BY_LEVEL[level as ReportLevel]].filter((k) => typeof r[k] !== "string");
  if (missing.length)
    throw new MicroRemedError(
      "E_CONFIG",
      `${file} is not a diagnosis report of the ${level} level (no ${missing.join(", ")})`,
      "pass a case's conversation.json, or its report as JSON",
    );
  return r as unknown as DiagnosisReport;
}

/** Serve the case's tools until the client goes (stdio) or a signal comes (HTTP). */
export async function serveMcp(o: McpOpts): Promise<void> {
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
  const timeoutMs = o.playbookTimeout * 1000;
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
  const make = () => createMcpServer(tools, log, packageVersion());
  if (o.http === undefined) {
    await make().connect(new StdioServerTransport());
    return;
  }
  const listener = await listenMcp(make, { port: o.http });
  process.stderr.write(`microremed mcp: serving ${listener.url} as ${kubeconfig}\n`);
  await new Promise<void>((res) => process.once("SIGINT", res).once("SIGTERM", res));
  await listener.close();
}
