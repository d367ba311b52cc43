// The shards of one run (`run --shard i/n` on n machines) merged back into that run. Shards are
// only merged when they make the run up exactly: the same configuration apart from the shard (and
// the namespace, which shards sharing a cluster must not share), the same plan, every shard once,
// no case twice and none missing. Anything else is refused, naming the folders and what differs,
// because a report over a partial or mixed set of shards would look like a whole run.
import { basename } from "node:path";
import { MicroRemedError } from "../errors.js";
import { trialKey } from "../runlog/records.js";
import type { LoadedRun } from "./runs.js";

/** Config keys that may differ between the shards of one run. */
const FREE = new Set(["shard", "namespace"]);
/** Paths that may sit elsewhere on each machine: compared by file name. */
const PATHS = new Set(["env", "experimentPath", "manifestPath"]);

const value = (k: string, v: unknown) =>
  JSON.stringify(PATHS.has(k) && typeof v === "string" ? basename(v) : (v ?? null));

function refuse(message: string, fix: string): never {
  throw new MicroRemedError("E_CONFIG", message, fix);
}

const parse = (s: string) => {
  const [i, n] = s.split("/").map(Number);
  return { i, n };
};

/** Keys whose values differ between two shards' run.json (config, plannedCases, trials). */
function differences(a: LoadedRun, b: LoadedRun): string[] {
  const ca = a.config ?? {};
  const cb = b.config ?? {};
  const keys = [...new Set([...Object.keys(ca), ...Object.keys(cb)])].filter((k) => !FREE.has(k));
  const out = keys
    .filter((k) => value(k, ca[k]) !== value(k, cb[k]))
    .map((k) => `${k} ${value(k, ca[k])} vs ${value(k, cb[k])}`);
  if (a.plannedCases !== b.plannedCases)
    out.push(`plannedCases ${a.plannedCases ?? "?"} vs ${b.plannedCases ?? "?"}`);
  // config.trials says it already, when run.json has it there
  if (a.trials !== b.trials && !out.some((d) => d.startsWith("trials ")))
    out.push(`trials ${a.trials} vs ${b.trials}`);
  const na = parse(a.shard ?? "").n;
  const nb = parse(b.shard ?? "").n;
  if (na !== nb) out.push(`shard ${a.shard} vs ${b.shard} (split into ${na} and ${nb})`);
  return out;
}

const caseName = (index: number, trial: number, trials: number) =>
  `case ${index}${trials > 1 ? ` trial ${trial}` : ""}`;

/** A list that stays one line: the first few, then how many more. */
const few = (xs: string[], max = 8) =>
  xs.length > max ? `${xs.slice(0, max).join(", ")} and ${xs.length - max} more` : xs.join(", ");

/** One run from all of its shards, or a MicroRemedError saying why they are not one run. */
export function mergeShardGroup(shards: LoadedRun[]): LoadedRun {
  const sorted = [...shards].sort((a, b) => parse(a.shard!).i - parse(b.shard!).i);
  const [first] = sorted;
  const where = sorted.map((s) => `${s.dir} (shard ${s.shard})`).join(", ");
  for (const s of sorted.slice(1)) {
    const diff = differences(first, s);
    if (diff.length)
      refuse(
        `${first.dir} and ${s.dir} are not shards of one run: ${diff.join("; ")}`,
        "pass the shards of one run (the same command with --shard 1/n … n/n), and report other runs in another report",
      );
  }
  const { n } = parse(first.shard!);
  const byIndex = new Map<number, LoadedRun[]>();
  for (const s of sorted) byIndex.set(parse(s.shard!).i, [...(byIndex.get(parse(s.shard!).i) ?? []), s]);
  const twice = [...byIndex.entries()].filter(([, xs]) => xs.length > 1);
  if (twice.length)
    refuse(
      `shard ${twice.map(([i, xs]) => `${i}/${n} is given twice (${xs.map((x) => x.dir).join(" and ")})`).join("; ")}: its cases would count twice`,
      "pass each shard's folder once",
    );
  const missingShards = Array.from({ length: n }, (_, k) => k + 1).filter((i) => !byIndex.has(i));
  if (missingShards.length)
    refuse(
      `shard${missingShards.length > 1 ? "s" : ""} ${missingShards.map((i) => `${i}/${n}`).join(", ")} of the run in ${where} ${missingShards.length > 1 ? "are" : "is"} missing`,
      `pass the folders of all ${n} shards (run the missing ones with --shard i/${n})`,
    );

  // every case once, each in the folder of its own shard
  const trials = first.trials;
  const seen = new Map<string, LoadedRun>();
  const doubled: string[] = [];
  const misplaced: string[] = [];
  for (const s of sorted) {
    const { i } = parse(s.shard!);
    for (const c of s.cases) {
      const name = caseName(c.index, c.trial ?? 1, trials);
      const key = trialKey(c.index, c.trial);
      const other = seen.get(key);
      if (other) doubled.push(`${name} in ${other.dir} and ${s.dir}`);
      else seen.set(key, s);
      if ((c.index - 1) % n !== i - 1) misplaced.push(`${name} in ${s.dir} (shard ${s.shard})`);
    }
  }
  if (doubled.length)
    refuse(
      `the shards in ${where} hold ${few(doubled)}: a case may be in one shard only`,
      "pass the folders of the shards of one run, each once",
    );
  if (misplaced.length)
    refuse(
      `${few(misplaced)} ${misplaced.length > 1 ? "do" : "does"} not belong to that shard (case i belongs to shard ((i − 1) mod ${n}) + 1)`,
      "pass folders written by `run --shard i/n`, unedited",
    );
  const planned = first.plannedCases;
  if (planned !== undefined) {
    const missing: string[] = [];
    for (let index = 1; index <= planned; index++)
      for (let trial = 1; trial <= trials; trial++)
        if (!seen.has(trialKey(index, trials > 1 ? trial : undefined)))
          missing.push(`${caseName(index, trial, trials)} (shard ${((index - 1) % n) + 1}/${n})`);
    if (missing.length)
      refuse(
        `the shards in ${where} miss ${few(missing)} of the run's ${planned} case${planned === 1 ? "" : "s"}${trials > 1 ? ` × ${trials} trials` : ""}`,
        "run the shards that miss cases again with the same command: a run resumes where it stopped",
      );
  }
  const cases = sorted
    .flatMap((s) => s.cases)
    .sort((a, b) => a.index - b.index || (a.trial ?? 1) - (b.trial ?? 1));
  return {
    ...first,
    dir: sorted.map((s) => s.dir).join(" + "),
    cases,
    config: { ...first.config, shard: null },
    shard: null,
    parts: sorted,
  };
}

/** The runs with the shards of each run merged into one, in the place of its first shard. */
export function mergeShards(runs: LoadedRun[]): LoadedRun[] {
  // shards of one run share model, method, tier and system; within that, differences are refused
  const groupOf = (r: LoadedRun) => JSON.stringify([r.model, r.method, r.tier, basename(r.env)]);
  const groups = new Map<string, LoadedRun[]>();
  for (const r of runs) if (r.shard) groups.set(groupOf(r), [...(groups.get(groupOf(r)) ?? []), r]);
  const merged = new Map([...groups.entries()].map(([k, g]) => [k, mergeShardGroup(g)]));
  const out: LoadedRun[] = [];
  for (const r of runs) {
    if (!r.shard) out.push(r);
    else if (merged.has(groupOf(r))) {
      out.push(merged.get(groupOf(r))!);
      merged.delete(groupOf(r));
    }
  }
  return out;
}
