// Two runs side by side: cases paired by index. Runs of the same experiment file, seed and case
// count hold the same cases (runner/experiments.ts plans them from the seed), so a pair is the
// same fault on the same target, met by two models or methods. Other runs are refused.
import { basename } from "node:path";
import { MicroRemedError } from "../errors.js";
import { type CaseStatus, isEvaluated, type Reason } from "../outcome.js";
import type { CaseRecord } from "../runlog/records.js";
import { rateLine } from "../runlog/summary.js";
import type { LevelRun, LoadedRun, Series } from "./runs.js";
import { trialOf } from "./trace.js";

/** A case of a run: its index, and its trial when the run repeats cases (--trials). */
const key = (c: CaseRecord) => `${c.index}.${trialOf(c) ?? 1}`;

export const DIFF_GROUPS = ["both", "a-only", "b-only", "neither"] as const;
export type DiffGroup = (typeof DIFF_GROUPS)[number];

export const GROUP_TITLES: Record<DiffGroup, string> = {
  both: "solved by both",
  "a-only": "solved by A only",
  "b-only": "solved by B only",
  neither: "solved by neither",
};

export interface DiffSide {
  status: CaseStatus;
  success: boolean;
  reason?: Reason;
}

export interface DiffRow {
  env: string;
  tier: string;
  index: number;
  trial?: number;
  failure: string;
  target: string;
  group: DiffGroup;
  a: DiffSide;
  b: DiffSide;
}

export interface DiffReport {
  a: string;
  b: string;
  rows: DiffRow[];
  counts: Record<DiffGroup, number>;
  /** Cases only one side has (a run cut short): not paired. */
  unpaired: number;
}

const side = (c: CaseRecord): DiffSide => ({
  status: c.status,
  success: c.success,
  ...(c.reason ? { reason: c.reason } : {}),
});

const groupOf = (a: boolean, b: boolean): DiffGroup =>
  a && b ? "both" : a ? "a-only" : b ? "b-only" : "neither";

/** Why two runs cannot be paired, or undefined when they can. */
export function planMismatch(a: LoadedRun, b: LoadedRun): string | undefined {
  const diffs: string[] = [];
  const file = (r: LoadedRun) => (r.plan.experimentPath ? basename(r.plan.experimentPath) : undefined);
  if (a.env !== b.env) diffs.push(`system ${a.env} vs ${b.env}`);
  if (file(a) !== file(b)) diffs.push(`experiment file ${file(a) ?? "?"} vs ${file(b) ?? "?"}`);
  if (a.plan.seed !== b.plan.seed) diffs.push(`seed ${a.plan.seed ?? "?"} vs ${b.plan.seed ?? "?"}`);
  if ((a.plan.experiments ?? null) !== (b.plan.experiments ?? null))
    diffs.push(`--experiments ${a.plan.experiments ?? "all"} vs ${b.plan.experiments ?? "all"}`);
  if (diffs.length) return diffs.join(", ");
  // the same plan must give the same cases: a changed experiment file under the same name does not
  const bIndex = new Map(b.cases.map((c) => [key(c), c]));
  for (const c of a.cases) {
    const o = bIndex.get(key(c));
    if (o && (o.failure !== c.failure || o.target !== c.target))
      return `case ${c.index} is ${c.failure} → ${c.target} in one run and ${o.failure} → ${o.target} in the other`;
  }
  return undefined;
}

function pair(a: LoadedRun, b: LoadedRun, rows: DiffRow[]): number {
  const bIndex = new Map(b.cases.map((c) => [key(c), c]));
  let unpaired = 0;
  for (const c of [...a.cases].sort((x, y) => x.index - y.index || (trialOf(x) ?? 1) - (trialOf(y) ?? 1))) {
    const o = bIndex.get(key(c));
    if (!o) {
      unpaired++;
      continue;
    }
    bIndex.delete(key(c));
    rows.push({
      env: a.env,
      tier: a.tier,
      index: c.index,
      ...(trialOf(c) ? { trial: trialOf(c) } : {}),
      failure: c.failure,
      target: c.target,
      group: groupOf(c.success, o.success),
      a: side(c),
      b: side(o),
    });
  }
  return unpaired + bIndex.size;
}

function report(a: string, b: string, rows: DiffRow[], unpaired: number): DiffReport {
  const counts = Object.fromEntries(DIFF_GROUPS.map((g) => [g, 0])) as Record<DiffGroup, number>;
  for (const r of rows) counts[r.group]++;
  return { a, b, rows, counts, unpaired };
}

const label = (r: { model: string; method: string }) => `${r.model} / ${r.method}`;

/** `microremed diff`: two runs of the same plan, or an error that says what differs. */
export function diffRuns(a: LoadedRun, b: LoadedRun): DiffReport {
  const why = planMismatch(a, b);
  if (why)
    throw new MicroRemedError(
      "E_USAGE",
      `${a.dir} and ${b.dir} do not hold the same cases (${why})`,
      "diff two runs of the same system, experiment file, --seed and --experiments",
    );
  const rows: DiffRow[] = [];
  const unpaired = pair(a, b, rows);
  return report(`${label(a)} (${a.dir})`, `${label(b)} (${b.dir})`, rows, unpaired);
}

/**
 * The report's table for two series: each run of A paired with B's run of the same plan. The two
 * may be one model and method at two report levels: the same cases, told more or less.
 */
export function diffSeries(
  runs: LevelRun[],
  sa: Series,
  sb: Series,
  name: (s: Series) => string = label,
): DiffReport {
  const of = (s: Series) =>
    runs.filter((r) => r.model === s.model && r.method === s.method && r.level === s.level);
  const bs = of(sb);
  const rows: DiffRow[] = [];
  let unpaired = 0;
  for (const a of of(sa)) {
    const b = bs.find((x) => !planMismatch(a, x));
    if (b) unpaired += pair(a, b, rows);
    else unpaired += a.cases.length;
  }
  return report(name(sa), name(sb), rows, unpaired);
}

const outcome = (s: DiffSide) =>
  s.success ? "solved" : s.reason ? `${s.reason.code}: ${s.reason.detail}` : s.status;

/** One side's success over its paired cases, "-" when none was evaluated, errors beside it. */
function sideRate(sides: DiffSide[]): string {
  const evaluated = sides.filter((x) => isEvaluated(x.status));
  const successes = evaluated.filter((x) => x.success).length;
  return rateLine({
    successRate: evaluated.length ? successes / evaluated.length : null,
    successes,
    evaluated: evaluated.length,
    errors: sides.filter((x) => x.status === "error").length,
  });
}

/** The diff as terminal text: each side's rate, the four groups, each case with each side's reason. */
export function formatDiff(d: DiffReport): string {
  const out = [
    `A: ${d.a}: ${sideRate(d.rows.map((r) => r.a))}`,
    `B: ${d.b}: ${sideRate(d.rows.map((r) => r.b))}`,
    "",
  ];
  for (const g of DIFF_GROUPS) {
    const rows = d.rows.filter((r) => r.group === g);
    out.push(`${GROUP_TITLES[g]}: ${rows.length}`);
    for (const r of rows) {
      out.push(
        `  case ${r.index}${r.trial ? ` trial ${r.trial}` : ""} (${r.tier}) ${r.failure} → ${r.target}`,
      );
      if (g !== "both") out.push(`    A: ${outcome(r.a)}`, `    B: ${outcome(r.b)}`);
    }
  }
  if (d.unpaired) out.push("", `${d.unpaired} case(s) only one run holds were left out`);
  return `${out.join("\n")}\n`;
}

export { outcome as diffOutcome };
