// The package's public face (package.json "exports": `import … from "microremed"`): the
// interfaces a remediation method of your own is written against (the method, the model, the
// executor, the prober, the agent launcher), the diagnosis report it is handed, the records and
// the summary a run writes, the report over runs, and the runner for programmatic use.
import { runConfigs } from "./cli/run.js";
import { usageError } from "./errors.js";
import type { RunSummary } from "./runlog/summary.js";
import { type RunFlags, resolveConfig, withDefaults } from "./runner/config.js";
import { RUN_OPTIONS } from "./runner/options.js";

export type { ExecuteOptions, ExecutionResult, Executor } from "./ansible/executor.js";
export type { DiagnosisReport } from "./diagnosis/report.js";
export type {
  ChatMessage,
  Model,
  ModelRequest,
  ModelResponse,
  ToolCall,
  ToolSchema,
  Usage,
} from "./llm/types.js";
export type {
  AgentLauncher,
  AgentRun,
  Attempt,
  LaunchExtras,
  Method,
  MethodContext,
  MethodError,
  MethodResult,
  Prober,
} from "./methods/types.js";
export { buildReport, type Report, reportFrom } from "./report/index.js";
export type { Stats } from "./report/stats.js";
export type { Figures } from "./runlog/figures.js";
export type { CaseRecord } from "./runlog/records.js";
export type { RunSummary } from "./runlog/summary.js";
export type { Score, Scorer, Verdict } from "./verify/types.js";

/** A run's options, as `microremed run`'s flags in camelCase (`experimentPath`, `savePath`, ...; `method` for --remediate-method). */
export type RunOptions = Partial<RunFlags>;

/**
 * Runs the experiments of one configuration, as `microremed run` does, and returns the run's
 * summary (its folder under savePath holds the records). The signal, when given, stops the run:
 * the current case is cleaned up and recorded as interrupted, and the promise rejects.
 */
export async function runBenchmark(
  options: RunOptions,
  hooks: { log?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<RunSummary> {
  const unknown = Object.keys(options).filter((k) => !(k in RUN_OPTIONS));
  if (unknown.length)
    throw usageError(
      `unknown run option${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`,
      `use the keys of microremed run's flags in camelCase: ${Object.keys(RUN_OPTIONS).join(", ")}`,
    );
  const cfg = resolveConfig(withDefaults(options));
  const [summary] = await runConfigs([cfg], {
    log: hooks.log ?? (() => {}),
    signal: hooks.signal ?? new AbortController().signal,
  });
  return summary;
}
