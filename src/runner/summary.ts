// The run's summary as the reference prints it (success rate, attempts per success, time,
// tokens, success ratio per failure type), injection failures apart.
import { addUsage, emptyUsage, type Usage } from "../models/types.js";
import type { CaseRecord } from "./records.js";

export interface TypeSummary {
  cases: number;
  successes: number;
  rate: number;
}

export interface RunSummary {
  run: string;
  env: string;
  method: string;
  model: string;
  cases: number;
  evaluated: number;
  successes: number;
  successRate: number;
  injectionFailures: number;
  interrupted: number;
  errors: number;
  attemptsPerSuccess: number | null;
  meanRemediationSeconds: number | null;
  tokens: Usage;
  tokensPerCase: number | null;
  referencePasses: number;
  healthPasses: number;
  perFailure: Record<string, TypeSummary>;
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

export function summarize(
  run: string,
  meta: { env: string; method: string; model: string },
  recs: CaseRecord[],
): RunSummary {
  // harness errors and interrupted cases say nothing about the method: they are reported apart
  const evaluated = recs.filter((r) => r.status === "success" || r.status === "failure");
  const successes = evaluated.filter((r) => r.success);
  const perFailure: Record<string, TypeSummary> = {};
  for (const r of evaluated) {
    perFailure[r.failure] ??= { cases: 0, successes: 0, rate: 0 };
    const t = perFailure[r.failure];
    t.cases++;
    if (r.success) t.successes++;
  }
  for (const t of Object.values(perFailure)) t.rate = round(t.successes / t.cases);
  const tokens = recs.reduce((u, r) => addUsage(u, r.tokens), emptyUsage());
  const times = evaluated.map((r) => r.remediationSeconds).filter((x): x is number => typeof x === "number");
  return {
    run,
    ...meta,
    cases: recs.length,
    evaluated: evaluated.length,
    successes: successes.length,
    successRate: evaluated.length ? round(successes.length / evaluated.length) : 0,
    injectionFailures: recs.filter((r) => r.status === "injection-failure").length,
    interrupted: recs.filter((r) => r.status === "interrupted").length,
    errors: recs.filter((r) => r.status === "error").length,
    attemptsPerSuccess: successes.length
      ? round(successes.reduce((n, r) => n + r.attempts, 0) / successes.length, 2)
      : null,
    meanRemediationSeconds: times.length ? round(times.reduce((a, b) => a + b, 0) / times.length, 1) : null,
    tokens,
    tokensPerCase: evaluated.length
      ? Math.round((tokens.inputTokens + tokens.outputTokens) / evaluated.length)
      : null,
    referencePasses: evaluated.filter((r) => r.verdicts.reference?.pass).length,
    healthPasses: evaluated.filter((r) => r.verdicts.health?.pass).length,
    perFailure,
  };
}

export function formatSummary(s: RunSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `Run ${s.run}: ${s.env}, ${s.method}, model ${s.model}`,
    `  success rate: ${pct(s.successRate)} (${s.successes}/${s.evaluated} cases; reference check passed ${s.referencePasses}, namespace health passed ${s.healthPasses})`,
    `  attempts per success: ${s.attemptsPerSuccess ?? "-"}`,
    `  mean remediation time: ${s.meanRemediationSeconds ?? "-"} s (cluster time)`,
    `  tokens: ${s.tokens.inputTokens} in, ${s.tokens.outputTokens} out (${s.tokensPerCase ?? "-"} per case)${s.tokens.costUsd ? `, $${s.tokens.costUsd.toFixed(4)}` : ""}`,
    `  injection failures (not counted): ${s.injectionFailures}${s.interrupted ? `; interrupted: ${s.interrupted}` : ""}${s.errors ? `; harness errors: ${s.errors}` : ""}`,
    "  success ratio per failure type:",
    ...Object.entries(s.perFailure)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([f, t]) => `    ${f.padEnd(18)} ${t.successes}/${t.cases} (${pct(t.rate)})`),
  ];
  return `${lines.join("\n")}\n`;
}
