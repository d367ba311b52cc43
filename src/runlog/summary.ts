// The run's summary as the reference prints it (success rate, attempts per success, time,
// tokens, success ratio per failure type), injection failures and errors of the run apart, and
// with --trials k the reliability over the trials (pass@1, pass@k, pass^k).
import { isEvaluated } from "../outcome.js";
import { type Figures, figuresOf, pct, round } from "./figures.js";
import { formatLocalization, type LocalizationRow, localizationRows } from "./localization.js";
import { type PassK, passK } from "./passk.js";
import type { CaseRecord } from "./records.js";
import { trialKey } from "./records.js";

export interface TypeSummary {
  cases: number;
  successes: number;
  rate: number;
  /** With --trials k > 1: over the cases of this failure type. */
  passK?: PassK;
}

/** An error of the run (provider, tools, cluster): not the model's failure, listed apart. */
export interface ErrorCase {
  index: number;
  trial?: number;
  failure: string;
  target: string;
  code: string;
  detail: string;
}

/** A run's summary: its figures (figures.ts), reliability over trials, and what did not succeed, why. */
export interface RunSummary extends Figures {
  run: string;
  env: string;
  method: string;
  model: string;
  /** Runs of each case (--trials). */
  trials: number;
  /** With trials > 1: pass@1, pass@k and pass^k over the cases with k evaluated trials. */
  passK?: PassK;
  /** Each case that ended as an error of the run, with its reason code. */
  errorCases: ErrorCase[];
  perFailure: Record<string, TypeSummary>;
  /** Cases that did not succeed, by reason code (runlog/reasons.ts); "unknown" where none was recorded. */
  reasons: Record<string, number>;
  /** The same per failure type. */
  reasonsPerFailure: Record<string, Record<string, number>>;
  /** Per report level and tier: success, localized and their crossings (localization.ts). */
  localization?: LocalizationRow[];
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

/**
 * The records that count: cases.jsonl is append-only and a case (or trial) run again after an
 * error or an interruption is appended again, so the last record of each (index, trial) wins.
 * Sorted by index, then trial.
 */
export function latestRecords(recs: CaseRecord[]): CaseRecord[] {
  const last = new Map<string, CaseRecord>();
  for (const r of recs) {
    const key = trialKey(r.index, r.trial);
    // delete first, so the map's order is not the first record's position
    last.delete(key);
    last.set(key, r);
  }
  return [...last.values()].sort((a, b) => a.index - b.index || (a.trial ?? 1) - (b.trial ?? 1));
}

/**
 * Each case's evaluated trials (true = success), for the pass@k estimators. An injection failure,
 * an error or an interrupted trial says nothing about the method: it is left out, and a case with
 * fewer than k evaluated trials is left out of pass@k.
 */
export function trialOutcomes(recs: CaseRecord[]): boolean[][] {
  const byCase = new Map<number, boolean[]>();
  for (const r of recs) {
    if (!isEvaluated(r.status)) continue;
    byCase.set(r.index, [...(byCase.get(r.index) ?? []), r.success]);
  }
  return [...byCase.values()];
}

/** The number of trials per case the records show (1 for a run without --trials). */
export const trialsOf = (recs: CaseRecord[]) => Math.max(1, ...recs.map((r) => r.trial ?? 1));

export function summarize(
  run: string,
  meta: { env: string; method: string; model: string; trials?: number },
  all: CaseRecord[],
): RunSummary {
  const recs = latestRecords(all);
  const { trials: k = trialsOf(recs), ...names } = meta;
  // harness errors and interrupted cases say nothing about the method: they are reported apart
  const evaluated = recs.filter((r) => isEvaluated(r.status));
  const perFailure: Record<string, TypeSummary> = {};
  for (const r of evaluated) {
    perFailure[r.failure] ??= { cases: 0, successes: 0, rate: 0 };
    const t = perFailure[r.failure];
    t.cases++;
    if (r.success) t.successes++;
  }
  for (const [f, t] of Object.entries(perFailure)) {
    t.rate = round(t.successes / t.cases);
    const pk = k > 1 ? passK(trialOutcomes(recs.filter((r) => r.failure === f)), k) : undefined;
    if (pk) t.passK = pk;
  }
  const byFailure = new Map<string, CaseRecord[]>();
  for (const r of recs) byFailure.set(r.failure, [...(byFailure.get(r.failure) ?? []), r]);
  const reasonsPerFailure = Object.fromEntries(
    [...byFailure.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([f, rs]) => [f, countReasons(rs)] as const)
      .filter(([, c]) => Object.keys(c).length > 0),
  );
  const pk = k > 1 ? passK(trialOutcomes(recs), k) : undefined;
  return {
    run,
    ...names,
    ...figuresOf(recs),
    trials: k,
    ...(pk ? { passK: pk } : {}),
    errorCases: recs
      .filter((r) => r.status === "error")
      .map((r) => ({
        index: r.index,
        ...(r.trial ? { trial: r.trial } : {}),
        failure: r.failure,
        target: r.target,
        code: r.reason?.code ?? "unknown",
        detail: r.reason?.detail ?? r.errors[0] ?? "",
      })),
    perFailure,
    reasons: countReasons(recs),
    reasonsPerFailure,
    localization: localizationRows(recs),
  };
}

/**
 * "40.0% (2/5)", or "-" over no evaluated case, with the errors of the run beside it: a run whose
 * every case was an error (a provider outage) measured nothing, and must not read as 0%.
 */
export function rateLine(s: Pick<RunSummary, "successRate" | "successes" | "evaluated" | "errors">): string {
  const errors = s.errors ? `; ${s.errors} error${s.errors === 1 ? "" : "s"} of the run, not counted` : "";
  return `${pct(s.successRate)} (${s.successes}/${s.evaluated}${errors})`;
}
const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([code, n]) => `${code} ${n}`)
    .join(", ");

/** "pass@1 66.7% [20.8–93.9%], pass@3 100.0% [..], pass^3 33.3% [..]" */
export function formatPassK(p: PassK): string {
  const one = (name: string, v: number, [lo, hi]: [number, number]) =>
    `${name} ${pct(v)} [${pct(lo)}–${pct(hi)}]`;
  return [
    one("pass@1", p.passAt1, p.intervals.passAt1),
    one(`pass@${p.k}`, p.passAtK, p.intervals.passAtK),
    one(`pass^${p.k}`, p.passHatK, p.intervals.passHatK),
  ].join(", ");
}

/** summary.txt: the reference's summary lines under its names, then what MicroRemed adds. */
export function formatSummary(s: RunSummary): string {
  const secs = (x: number | null) => (x === null ? "-" : `${x.toFixed(1)}s`);
  const num = (x: number | null, d = 2) => (x === null ? "-" : x.toFixed(d));
  const errorCases = s.errorCases ?? [];
  const errorCodes: Record<string, number> = {};
  for (const e of errorCases) errorCodes[e.code] = (errorCodes[e.code] ?? 0) + 1;
  const lines = [
    `Run ${s.run}: ${s.env}, ${s.method}, model ${s.model}${s.trials > 1 ? `, ${s.trials} trials per case` : ""}`,
    `  Total Experiments: ${s.cases}${s.trials > 1 ? " (case trials)" : ""}`,
    `  Injection Failures: ${s.injectionFailures}`,
    `  Errors of the run (not counted): ${s.errors}${s.errors ? ` (${counts(errorCodes)})` : ""}${s.interrupted ? `; interrupted: ${s.interrupted}` : ""}`,
    `  Successful Remediations: ${s.successes}`,
    `  Success Rate: ${pct(s.successRate)} (${s.successes}/${s.evaluated} cases${s.errors ? `; ${s.errors} error${s.errors === 1 ? "" : "s"} of the run, not counted` : ""}; reference check passed ${s.referencePasses}, namespace health passed ${s.healthPasses})`,
    `  Average Attempts per Success: ${num(s.attemptsPerSuccess)}`,
    `  Average Remediation Time per Success: ${secs(s.meanRemediationSecondsPerSuccess ?? null)}`,
    `  Average Remediation Time: ${secs(s.meanRemediationSeconds)}`,
    `  Average Tokens per Success: ${s.tokensPerSuccess ?? "-"}`,
    `  Average Tokens per Case: ${s.tokensPerCase ?? "-"}`,
    `  Tokens: ${s.tokens.inputTokens} in, ${s.tokens.outputTokens} out${s.tokens.costUsd ? `, $${s.tokens.costUsd.toFixed(4)}` : ""}`,
    "  Failure Types Success Ratio:",
    ...Object.entries(s.perFailure)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([f, t]) => `    ${f.padEnd(18)} ${t.successes}/${t.cases} (${pct(t.rate)})`),
  ];
  if (s.passK) {
    lines.push(
      `  Reliability over ${s.trials} trials (${s.passK.cases} cases with ${s.passK.k} evaluated trials; 95% intervals): ${formatPassK(s.passK)}`,
    );
    for (const [f, t] of Object.entries(s.perFailure).sort(([a], [b]) => a.localeCompare(b)))
      if (t.passK) lines.push(`    ${f.padEnd(18)} ${formatPassK(t.passK)}`);
  }
  if (Object.keys(s.reasons ?? {}).length) {
    lines.push(`  Why cases did not succeed: ${counts(s.reasons)}`);
    for (const [f, c] of Object.entries(s.reasonsPerFailure ?? {}))
      lines.push(`    ${f.padEnd(18)} ${counts(c)}`);
  }
  lines.push(...formatLocalization(s.localization ?? []));
  if (errorCases.length) {
    lines.push("  Errors of the run (the provider, the tools or the cluster; `run` again re-runs them):");
    for (const e of errorCases)
      lines.push(
        `    case ${e.index}${e.trial ? ` trial ${e.trial}` : ""} ${e.failure} → ${e.target}: ${e.code}${e.detail ? `: ${e.detail}` : ""}`,
      );
  }
  return `${lines.join("\n")}\n`;
}
