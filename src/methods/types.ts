// The method seam: a diagnosis report in, playbooks out (through a model and an executor).
import type { ExecutionResult, Executor } from "../ansible/executor.js";
import type { CaseFacts, ChatMessage, Model, Usage } from "../models/types.js";

export interface Verdict {
  pass: boolean;
  reason: string;
  measurements: Record<string, unknown>;
  /** The measurement could not be made (no metrics yet, a command gave no result): says nothing about the fault. */
  inconclusive?: boolean;
}

export interface DiagnosisReport {
  namespace: string;
  service: string;
  failure: string;
  category: string;
  title: string;
  env: string;
  runtimeContext: string;
  inventory: string;
}

export interface Attempt {
  index: number;
  playbook?: string;
  execution?: ExecutionResult;
  /** The method's own verification (ThinkRemed), when it ran one. */
  verdict?: Verdict;
  problems: string[];
  probeRounds: number;
}

export interface MethodContext {
  report: DiagnosisReport;
  facts: CaseFacts;
  model: Model;
  executor: Executor;
  caseDir: string;
  /** Verify the system now (after the settle time), as the Verification agent does. */
  verify: () => Promise<Verdict>;
  /** Run one read-only probe command in the sandbox; returns what the model sees. */
  probe?: (command: string) => Promise<string>;
  maxAttempts: number;
  signal?: AbortSignal;
}

export interface MethodResult {
  attempts: Attempt[];
  conversation: ChatMessage[];
  /** Tokens per agent role. */
  usage: Record<string, Usage>;
  /** A model or provider failure that ended the method early (recorded on the case). */
  error?: string;
}

export interface Method {
  readonly name: string;
  remediate(ctx: MethodContext): Promise<MethodResult>;
}
