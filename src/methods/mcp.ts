// mcp:COMMAND: an external agent that works through MCP tools. The runner serves the case's MCP
// server (src/mcp) outside the sandbox, on a unix socket the sandbox's relay reaches on loopback
// (or on 127.0.0.1 for our uid only, without bubblewrap), at one URL written into the files
// Claude Code, Codex and a plain client read; the agent runs as a cmd: agent does (sandbox, the
// case's identity, --playbook-timeout) and gets the report on stdin too. Each tool acts as the
// case's identity through the roles the method is handed (prober, launcher, executor) and each
// call goes into the case's conversation. The outcome is verified as for every method.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { reportScope } from "../diagnosis/levels.js";
import { renderReport } from "../diagnosis/report.js";
import type { McpCase, McpListener, Submission } from "../mcp/index.js";
import { cut, probeContract, probeLimits } from "../probe/index.js";
import { packageVersion } from "../util/version.js";
import { agentError } from "./errors.js";
import type { Attempt, Method, MethodContext, MethodResult } from "./types.js";

/** Characters of a kubectl write's output the agent sees (the probe's default budget). */
const WRITE_OUTPUT = 12_000;

const shellQuote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`);
const NS_FLAGS = /^(-n|--namespace(=.*)?|-A|--all-namespaces)$/;

/** The node_modules folder holding the MCP SDK: readable in the sandbox, for agents in Node. */
function sdkModules(): string[] {
  try {
    const file = createRequire(import.meta.url).resolve("@modelcontextprotocol/sdk/client/index.js");
    const at = file.lastIndexOf(`${sep}node_modules${sep}`);
    return at < 0 ? [] : [file.slice(0, at + "/node_modules".length)];
  } catch {
    return [];
  }
}

/** Aborted when either is: the run's end, or the client giving up on the call. */
function either(a?: AbortSignal, b?: AbortSignal): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

/** The roles the tools act through, all as the case's identity. */
export type McpRoles = Pick<MethodContext, "report" | "executor" | "caseDir" | "signal"> &
  Required<Pick<MethodContext, "launcher" | "prober">>;

/** What a run's submit answers: the runner verifies the system once the agent has ended. */
const SUBMITTED = "submitted: the system is checked now as you left it; stop here.";

/**
 * The case as the MCP tools reach it, through the roles; the attempt records what they did.
 * `o.submitted`: what a first submit answers; `o.onSubmit`: told of it (`microremed mcp` saves it).
 */
export function caseTools(
  ctx: McpRoles,
  attempt: Attempt,
  o: { submitted?: string; onSubmit?: (s: Submission) => void } = {},
): McpCase {
  const namespace = ctx.report.namespace;
  let playbooks = 0;
  let submitted: Submission | undefined;
  return {
    report: renderReport(ctx.report),
    scope: reportScope(ctx.report),
    readRules: probeContract(probeLimits({})),
    namespace,
    probe: async (command) => {
      attempt.probeRounds++;
      return ctx.prober.probe(command);
    },
    kubectl: async (argv, signal) => {
      const full = ["kubectl", ...(argv.some((a) => NS_FLAGS.test(a)) ? [] : ["-n", namespace]), ...argv];
      const shown = full.map(shellQuote).join(" ");
      const run = await ctx.launcher.launch(shown, "", either(ctx.signal, signal), undefined, {
        verbatim: true,
      });
      const body = cut([run.stdout.trimEnd(), run.stderr.trim()].filter(Boolean).join("\n"), WRITE_OUTPUT);
      const note = run.timedOut
        ? "[timed out and was stopped]"
        : run.exitCode
          ? `[exit code ${run.exitCode}]`
          : "";
      return `$ ${shown}\n${[body, note].filter(Boolean).join("\n") || "(no output)"}\n`;
    },
    runPlaybook: async (playbook, signal) => {
      playbooks++;
      const execution = await ctx.executor.run(playbook, {
        caseDir: ctx.caseDir,
        name: `playbook-${playbooks}`,
        namespace,
        signal: either(ctx.signal, signal),
      });
      // the attempt keeps the last playbook: the one the agent left the system with
      attempt.playbook = playbook;
      attempt.execution = execution;
      return execution;
    },
    submitted: o.submitted ?? SUBMITTED,
    submit: (s) => {
      if (submitted) return false;
      submitted = s;
      o.onSubmit?.(s);
      return true;
    },
    submission: () => submitted,
  };
}

export class McpAgent implements Method {
  readonly name: string;
  readonly maxAttempts = 1;
  /** The kubectl tool reads as the probe does, with its default limits. */
  readonly probeLimits = {};

  constructor(readonly command: string) {
    this.name = `mcp:${command}`;
  }

  async remediate(ctx: MethodContext): Promise<MethodResult> {
    const attempt: Attempt = { index: 1, problems: [], probeRounds: 0 };
    const result: MethodResult = { attempts: [attempt], conversation: [], usage: {} };
    const { launcher, prober } = ctx;
    if (!launcher || !prober) {
      result.error = {
        reason: "harness",
        message: "the run gave the agent no sandbox to start in (no launcher or prober)",
      };
      return result;
    }
    // the MCP SDK loads when an mcp: agent runs, not with every method
    const { CallLog, createMcpServer, listenMcp, writeAgentConfig } = await import("../mcp/index.js");
    const log = new CallLog();
    const mcpCase = caseTools({ ...ctx, launcher, prober }, attempt);
    const make = () => createMcpServer(mcpCase, log, packageVersion());
    const io = mkdtempSync(join(tmpdir(), "mcp-"));
    const listeners: McpListener[] = [];
    try {
      // one URL in and out of bubblewrap: the relay inside listens on the port the host's has
      const tcp = await listenMcp(make);
      listeners.push(tcp);
      const url = tcp.url ?? "";
      const port = Number(new URL(url).port);
      const socket = join(io, "mcp.sock");
      listeners.push(await listenMcp(make, { socketPath: socket, hostPort: port }));
      const config = writeAgentConfig(ctx.caseDir, url);
      const input = JSON.stringify(
        {
          ...ctx.report,
          report: mcpCase.report,
          scope: mcpCase.scope,
          identity: ctx.identity,
          mcp: { url, config: config.files.plain },
        },
        null,
        2,
      );
      result.conversation.push({ role: "user", content: input });
      const run = await launcher.launch(this.command, input, ctx.signal, undefined, {
        env: config.env,
        relays: [{ socket, port }],
        readOnly: sdkModules(),
      });
      const { stdout, stderr, ...facts } = run;
      attempt.agent = facts;
      writeFileSync(join(ctx.caseDir, "agent.stdout"), stdout);
      writeFileSync(join(ctx.caseDir, "agent.stderr"), stderr);
      result.conversation.push(...log.messages());
      if (stdout.trim()) result.conversation.push({ role: "assistant", content: stdout });
      const submitted = mcpCase.submission();
      if (submitted)
        writeFileSync(join(ctx.caseDir, "submission.json"), `${JSON.stringify(submitted, null, 2)}\n`);
      const broken = agentError(run.cause, stderr);
      if (broken) {
        result.error = broken;
        return result;
      }
      if (run.timedOut)
        attempt.problems.push(
          `timed out: the agent ran past its time limit (${Math.round(run.durationMs / 1000)} s) and was killed`,
        );
      else if (run.exitCode !== 0)
        attempt.problems.push(
          `the agent exited with code ${run.exitCode}${stderr.trim() ? `: ${stderr.trim().slice(-300)}` : ""}`,
        );
      if (!submitted) attempt.problems.push("the agent never called submit");
      if (attempt.execution) attempt.problems.push(...attempt.execution.problems);
      return result;
    } finally {
      await Promise.all(listeners.map((l) => l.close()));
      rmSync(io, { recursive: true, force: true });
    }
  }
}
