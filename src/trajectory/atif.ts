// The ATIF v1.4 trajectory (Harbor's Agent Trajectory Interchange Format) as TypeScript types:
// the fields MicroRemed writes, named as the spec names them. The spec's JSON Schema, as we
// derived it, is schemas/atif-v1.4.json; the tests validate every trajectory against it.

export const ATIF_VERSION = "ATIF-v1.4";

export type Json = Record<string, unknown>;

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Json;
}

export interface AtifObservationResult {
  /** The tool_call_id of the same step this answers; absent for results of no tool call. */
  source_call_id?: string;
  content?: string;
}

export interface AtifMetrics {
  /** Every input token, cached ones included. */
  prompt_tokens?: number;
  completion_tokens?: number;
  /** The part of prompt_tokens read from the provider's cache. */
  cached_tokens?: number;
  cost_usd?: number;
  extra?: Json;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  /** Agent steps only, as the next three. */
  model_name?: string;
  message: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: AtifObservationResult[] };
  metrics?: AtifMetrics;
  extra?: Json;
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Json };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: {
    total_prompt_tokens?: number;
    total_completion_tokens?: number;
    total_cached_tokens?: number;
    total_cost_usd?: number;
    total_steps?: number;
    extra?: Json;
  };
  extra?: Json;
}
