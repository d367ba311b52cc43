// `microremed mcp` itself, loaded only when that command runs (cli/mcp.ts declares it): the case's
// tools over stdio or streamable HTTP, acting as an identity confined to the report's namespace
// (made at start, removed at exit), with every call appended to mcp-calls.jsonl in --dir.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { AnsibleExecutor } from "../ansible/executor.js";
import { MicroRemedError } from "../errors.js";
import type { AgentAccess } from "../identity/agent.js";
import { confineIdentity } from "../identity/confine.js";
import { CallLog, createMcpServer, listenMcp, type McpListener } from "../mcp/index.js";
import { caseTools } from "../methods/mcp.js";
import type { Attempt } from "../methods/types.js";
import { actingAs } from "../runner/acting.js";
import { SandboxLauncher } from "../runner/launcher.js";
import { parseSandboxMode, requireSandbox } from "../sandbox/support.js";
import { packageRoot } from "../util/paths.js";
import { packageVersion } from "../util/version.js";
import { stopDescendants, untilEnd } from "./mcp-lifetime.js";
import { loadReport } from "./mcp-report.js";

export interface McpOpts {
  kubeconfig?: string;
  report: string;
  /** The port of --http (0: a free one); stdio without it. */
  http?: number;
  dir: string;
  sandbox: string;
  /** Seconds. */
  playbookTimeout: number;
  agentAccess: AgentAccess;
}

/** What submit answers here: no run checks the system afterwards. */
const SUBMITTED =
  "submitted: your diagnosis is saved in submission.json; kubectl and run_playbook answer no more. Nothing checks the system here: whoever started this server checks it as you left it. Stop here.";

/** Serve the case's tools until the client goes (stdio), a signal comes, or the parent exits. */
export async function serveMcp(o: McpOpts): Promise<void> {
  const given = o.kubeconfig ?? process.env.KUBECONFIG;
  if (!given)
    throw new MicroRemedError(
      "E_CONFIG",
      "no kubeconfig for the tools",
      "pass --kubeconfig or set KUBECONFIG",
    );
  const access = o.agentAccess;
  const mode = parseSandboxMode(o.sandbox);
  await requireSandbox(mode);
  const report = loadReport(o.report);
  const caseDir = resolve(o.dir);
  mkdirSync(caseDir, { recursive: true });
  const calls = resolve(caseDir, "mcp-calls.jsonl");
  const append = (line: object) => appendFileSync(calls, `${JSON.stringify(line)}\n`);
  const id = await confineIdentity(resolve(given), report.namespace, access);
  // the tools stop when the server ends, whatever they were doing
  const stop = new AbortController();
  let listener: McpListener | undefined;
  try {
    const acting = actingAs({
      kubeconfig: id.kubeconfig,
      namespace: report.namespace,
      sandbox: mode,
      caseDir,
      timeoutMs: o.playbookTimeout * 1000,
      probeLimits: {},
    });
    const { prober } = acting;
    if (!prober) throw new Error("actingAs made no probe though limits were given");
    const attempt: Attempt = { index: 1, problems: [], probeRounds: 0 };
    const executor = new AnsibleExecutor({
      inventory: resolve(packageRoot(), "inventory.ini"),
      kubeconfig: id.kubeconfig,
      timeoutMs: acting.launcher.timeoutMs,
      sandbox: mode,
    });
    const tools = caseTools(
      {
        report,
        caseDir,
        executor: acting.executor(executor),
        launcher: new SandboxLauncher(acting.launcher),
        prober,
        signal: stop.signal,
      },
      attempt,
      {
        submitted: SUBMITTED,
        onSubmit: (s) =>
          writeFileSync(resolve(caseDir, "submission.json"), `${JSON.stringify(s, null, 2)}\n`),
      },
    );
    // appended, never wiped: a client that starts a server per call leaves every call, each
    // start marked
    append({
      at: new Date().toISOString(),
      start: { pid: process.pid, version: packageVersion(), namespace: report.namespace, access },
    });
    const log = new CallLog(append);
    const make = () => createMcpServer(tools, log, packageVersion());
    const stdio = o.http === undefined;
    const ended = untilEnd({ stdio });
    if (stdio) {
      const server = make();
      await server.connect(new StdioServerTransport());
      await ended;
      // the calls in flight are abandoned (recorded so) and their tools stopped
      await server.close();
    } else {
      listener = await listenMcp(make, { port: o.http });
      process.stderr.write(
        `microremed mcp: serving ${listener.url} as ${id.made ? "a ServiceAccount it made" : id.kubeconfig}\n`,
      );
      await ended;
    }
  } finally {
    stop.abort();
    await listener?.close();
    await stopDescendants();
    await id.remove();
  }
}
