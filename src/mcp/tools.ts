// The MCP server's tools, as data and handlers over one case: the diagnosis report, kubectl as the
// case's identity (reads as the probe runs them; every other kubectl command runs in the sandbox,
// where the API server's RBAC decides), run_playbook through the case's executor with its task
// results as data, and submit. Nothing here fences a command by its text: the probe's rules are
// the probe's, and a write is whatever the identity's Role lets through.
import { z } from "zod";
import type { ExecutionResult } from "../ansible/executor.js";
import { checkSegment, cut, isReadCommand, splitCommandLine } from "../probe/index.js";

/** What an agent may hand back with submit: its own diagnosis. */
export interface Submission {
  service?: string;
  cause?: string;
  causes?: { kind: string; name: string }[];
}

/** One case as the tools reach it; every function acts as the case's identity. */
export interface McpCase {
  /** The diagnosis report the case hands the method, rendered as the prompts show it. */
  report: string;
  /** What a report of the run's level does and does not contain, in a model's words. */
  scope: string;
  /** The probe's contract (src/probe): the rules and limits the kubectl tool's reads follow. */
  readRules: string;
  namespace: string;
  /** A command line the probe accepts: its observation. */
  probe(command: string): Promise<string>;
  /** A kubectl command the probe does not read (a write): run in the sandbox, RBAC decides. */
  kubectl(argv: string[], signal?: AbortSignal): Promise<string>;
  /** A playbook through the case's executor (`signal`: the call was abandoned, stop it). */
  runPlaybook(playbook: string, signal?: AbortSignal): Promise<ExecutionResult>;
  /** What a first submit answers: what happens next, where the server runs. */
  submitted: string;
  /** The agent says it is done; true the first time. */
  submit(s: Submission): boolean;
  /** What the agent submitted, once it has: from then on the tools that act refuse. */
  submission(): Submission | undefined;
}

/** What a tool refused to do, and why: the agent gets it as an error result (isError). */
export interface Refusal {
  refused: string;
}

export interface ToolSpec<S extends z.ZodRawShape> {
  name: string;
  /** Fixed, or written for the case (get_report says what the report of its level holds). */
  description: string | ((c: McpCase) => string);
  input: S;
  /** The tool looks or acts on the cluster: refused once the agent has submitted. */
  acts?: boolean;
  /** `signal`: aborted when the client gives up on the call. */
  run(c: McpCase, args: z.infer<z.ZodObject<S>>, signal?: AbortSignal): Promise<string | Refusal>;
}

/**
 * The one kubectl command (no pipe, no `;`) that is no read of the probe's (a write, or a command
 * the probe does not know): it goes to the write path. A read the probe's rules refuse (a watch, a
 * follow, a refused flag or output format) is no write: the probe refuses it with the reason.
 */
export function writeArgv(command: string): string[] | undefined {
  const segs = splitCommandLine(command);
  if (segs.length !== 1) return undefined;
  const [seg] = segs;
  if (seg.refusal || seg.stages.length !== 1 || seg.stages[0][0] !== "kubectl") return undefined;
  const args = seg.stages[0].slice(1);
  return isReadCommand(args) ? undefined : args;
}

/** Whether the probe refuses every command of the line (it then runs nothing). */
export function probeRefuses(command: string, namespace: string): boolean {
  const segs = splitCommandLine(command);
  return segs.length === 0 || segs.every((seg) => "refusal" in checkSegment(seg, namespace));
}

/** Characters of ansible's own error an agent sees for a playbook ansible could not parse. */
const ANSIBLE_ERROR = 4000;

/** Ansible's own error for a playbook it refused: from its ERROR! line (or [ERROR]) to the end. */
function ansibleError(output: string): string {
  const at = output.search(/^(ERROR!|\[ERROR\])/m);
  return cut((at < 0 ? output : output.slice(at)).trim(), ANSIBLE_ERROR);
}

/** A playbook's run as data: how it ended and each task's result (or ansible's error, if refused). */
export function executionData(e: ExecutionResult): Record<string, unknown> {
  return {
    ok: e.ok,
    accepted: e.accepted,
    exitCode: e.exitCode,
    timedOut: e.timedOut,
    ...(e.cause ? { cause: e.cause } : {}),
    ...(e.cause === "invalid-playbook" ? { ansibleError: ansibleError(e.output) } : {}),
    problems: e.problems,
    tasks: e.tasks,
    ...(e.warnings.length ? { warnings: e.warnings } : {}),
  };
}

const report: ToolSpec<Record<string, never>> = {
  name: "get_report",
  description: (c) => `The diagnosis report of the incident. ${c.scope}`,
  input: {},
  run: async (c) => c.report,
};

const kubectl: ToolSpec<{ command: z.ZodString }> = {
  name: "kubectl",
  acts: true,
  description: (c) =>
    [
      "Runs kubectl as your on-call identity, in the incident's namespace, and returns what it printed.",
      "Any single kubectl command that is not one of the read commands below (rollout restart, scale, set, patch, delete, apply -f FILE in the working folder, ...) runs as the identity in the sandbox; the cluster's RBAC allows or forbids it (403 Forbidden).",
      "A read command is checked by the rules below: one they refuse (a watch, a follow, a refused flag or output format) is refused with the reason and does not run.",
      // the reads' rules and limits, as ThinkRemed's probe states them (its first line is the write path's above)
      `Reads run as the probe runs them:\n${c.readRules.split("\n").slice(1).join("\n")}`,
    ].join("\n"),
  input: { command: z.string().describe("the command line, starting with kubectl") },
  async run(c, { command }, signal) {
    const argv = writeArgv(command);
    if (argv) return c.kubectl(argv, signal);
    const text = await c.probe(command);
    return probeRefuses(command, c.namespace) ? { refused: text } : text;
  },
};

const runPlaybook: ToolSpec<{ playbook: z.ZodString }> = {
  name: "run_playbook",
  acts: true,
  description:
    "Runs an Ansible playbook (YAML text; hosts: localhost, kubernetes.core modules or kubectl commands) as your on-call identity, and returns its result as JSON: ok, exit code, problems, and each task's status and message.",
  input: { playbook: z.string().describe("the playbook, as YAML text") },
  run: async (c, { playbook }, signal) =>
    JSON.stringify(executionData(await c.runPlaybook(playbook, signal)), null, 2),
};

const causeSchema = z.object({ kind: z.string(), name: z.string() });
const submit: ToolSpec<{
  service: z.ZodOptional<z.ZodString>;
  cause: z.ZodOptional<z.ZodString>;
  causes: z.ZodOptional<z.ZodArray<typeof causeSchema>>;
}> = {
  name: "submit",
  description:
    "Say you are done: kubectl and run_playbook answer no more afterwards, and the system stays as you left it. Optionally give your diagnosis: the root-cause service and the cause in a few words. Call it once, then stop.",
  input: {
    service: z.string().optional().describe("the service you found at the root of the incident"),
    cause: z.string().optional().describe("what was wrong with it, in a few words"),
    causes: z
      .array(causeSchema)
      .optional()
      .describe("for an incident with several causes: each object at fault, by kind and name"),
  },
  run: async (c, s) =>
    c.submit(s) ? c.submitted : { refused: "already submitted: the first submit counts; stop here." },
};

/** The answer of a tool that acts, once the agent has submitted. */
export const AFTER_SUBMIT =
  "refused: you already called submit, so the system stays as you left it; stop here.";

/** Every tool the server offers, in the order an agent meets them. */
export const TOOLS = [report, kubectl, runPlaybook, submit] as const;
