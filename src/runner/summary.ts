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
  /** Cases that did not succeed, by reason code (runner/reasons.ts); "unknown" where none was recorded. */
  reasons: Record<string, number>;
  /** The same per failure type. */
  reasonsPerFailure: Record<string, Record<string, number>>;
}

/** Counts of reason codes over the cases that did not succeed, most frequent first. */
export function countReasons(recs: CaseRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of recs) {
    if (r.status === "success") continue;
    const code = r.reason?.code ?? "unknown";
    counts[code] = (counts[code] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
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
  const byFailure = new Map<string, CaseRecord[]>();
  for (const r of recs) byFailure.set(r.failure, [...(byFailure.get(r.failure) ?? []), r]);
  const reasonsPerFailure = Object.fromEntries(
    [...byFailure.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([f, rs]) => [f, countReasons(rs)] as const)
      .filter(([, c]) => Object.keys(c).length > 0),
  );
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
    reasons: countReasons(recs),
    reasonsPerFailure,
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
  const counts = (c: Record<string, number>) =>
    Object.entries(c)
      .map(([code, n]) => `${code} ${n}`)
      .join(", ");
  if (Object.keys(s.reasons ?? {}).length) {
    lines.push(`  why cases did not succeed: ${counts(s.reasons)}`);
    for (const [f, c] of Object.entries(s.reasonsPerFailure ?? {}))
      lines.push(`    ${f.padEnd(18)} ${counts(c)}`);
  }
  return `${lines.join("\n")}\n`;
}
