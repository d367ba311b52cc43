// The method seam: a diagnosis report in, playbooks out, through the roles it is handed (a
// model, the executor, the scorer, the prober). Methods never reach the cluster themselves.
import type { ExecutionResult, Executor } from "../ansible/executor.js";
import type { DiagnosisReport } from "../diagnosis/report.js";
import type { ChatMessage, Model, Usage } from "../llm/types.js";
import type { ErrorReason, ReasonCode } from "../outcome.js";
import type { ProbeLimits } from "../probe/index.js";
import type { Scorer, Verdict } from "../verify/types.js";

export interface Attempt {
  index: number;
  playbook?: string;
  execution?: ExecutionResult;
  /** The method's own verification (ThinkRemed), when it ran one. */
  verdict?: Verdict;
  problems: string[];
  probeRounds: number;
  /** An external agent's run (cmd: methods). */
  agent?: Omit<AgentRun, "stdout" | "stderr">;
}

/** What an external agent process did (cmd: methods). */
export interface AgentRun {
  exitCode?: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it ended early: its time limit, Ctrl-C, or the harness could not start it. */
  cause?: Extract<ReasonCode, "timeout" | "interrupted" | "tool-missing" | "sandbox">;
  durationMs: number;
  /** CPU ms of its processes, where it could be read. */
  cpuMs?: number;
  /** Wall ms it waited on the cluster (a watch open through the API proxy). */
  waitedMs?: number;
}

/** What an agent started by an MCP method (mcp:) gets besides its command: the way to its server. */
export interface LaunchExtras {
  /** Variables added to the sandbox's allowlisted environment. */
  env?: Record<string, string>;
  /** Runner sockets reachable inside on a loopback port (SandboxOptions.relays). */
  relays?: { socket: string; port: number }[];
  /** More host paths readable inside (the MCP SDK the example agent imports). */
  readOnly?: string[];
  /** The command is the harness's own (kubectl for an MCP call): none of its words become readable host paths. */
  verbatim?: boolean;
}

/** The agent role: runs an external agent's command as the case's identity, in the sandbox, under a time limit. */
export interface AgentLauncher {
  launch(
    command: string,
    input: string,
    signal?: AbortSignal,
    onWaiting?: (waiting: boolean) => void,
    extras?: LaunchExtras,
  ): Promise<AgentRun>;
}

/** The probe role: one read-only command in the case's sandbox; returns what the model sees. */
export interface Prober {
  probe(command: string): Promise<string>;
}

export interface MethodContext {
  report: DiagnosisReport;
  /** What the case's identity may do, in a model's words (the prompts' {{identity}}). */
  identity: string;
  model: Model;
  /** execute: runs a playbook in the sandbox, as the case's identity. */
  executor: Executor;
  /** score: settle, then the runner's checks (ThinkRemed's Verification agent). */
  scorer: Scorer;
  /** probe: undefined when the method does not probe or the run has no sandbox for it. */
  prober?: Prober;
  /** agent: how an external agent process is started (cmd: methods). */
  launcher?: AgentLauncher;
  caseDir: string;
  /** T_max in force (the method's definition, or --max-attempts). */
  maxAttempts: number;
  signal?: AbortSignal;
}

/** A failure of the run (provider, tool) that ended the method early: not the model's failure. */
export interface MethodError {
  reason: ErrorReason;
  message: string;
}

export interface MethodResult {
  attempts: Attempt[];
  conversation: ChatMessage[];
  /** Tokens per agent role. */
  usage: Record<string, Usage>;
  error?: MethodError;
}

export interface Method {
  readonly name: string;
  /** T_max from the method's definition (one for single-shot methods); --max-attempts overrides it. */
  readonly maxAttempts: number;
  /** What the Probe agent may do; undefined when the method never probes. */
  readonly probeLimits?: Partial<ProbeLimits>;
  remediate(ctx: MethodContext): Promise<MethodResult>;
}
