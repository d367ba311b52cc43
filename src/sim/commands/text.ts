// Filters for pipelines: grep, head, tail, wc, sort. Each reads its files or stdin whole (the
// inputs here are small), except head, which stops reading once it has its lines.
import type { CommandRegistry, Proc } from "../userland/process.js";
import { readAll, readLines } from "../userland/stream.js";
import { parseArgs } from "./args.js";

/** The text of each named file ("-" or none: stdin), or undefined after a message. */
async function inputs(files: string[], p: Proc): Promise<{ name: string; text: string | undefined }[]> {
  const out: { name: string; text: string | undefined }[] = [];
  for (const f of files.length ? files : ["-"]) {
    if (f === "-") out.push({ name: "(standard input)", text: (await readAll(p.stdin)).toString("utf8") });
    else {
      try {
        out.push({ name: f, text: p.fs.read(p.path(f)).toString("utf8") });
      } catch (e) {
        p.fail(`${f}: ${(e as Error).message}`);
        out.push({ name: f, text: undefined });
      }
    }
  }
  return out;
}

const linesOf = (t: string) => (t === "" ? [] : t.replace(/\n$/, "").split("\n"));

/** A basic or extended regular expression as a JS RegExp (close enough for the usual patterns). */
function toRegExp(
  pattern: string,
  extended: boolean,
  fixed: boolean,
  ignoreCase: boolean,
  word: boolean,
): RegExp {
  let src = fixed ? pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : pattern;
  // In a basic RE, \| \( \) \{ \} \+ \? are the operators and the bare characters are literal.
  if (!fixed && !extended)
    src = src.replace(/\\([|(){}+?])|([|(){}+?])/g, (_m, op?: string, lit?: string) =>
      op ? op : `\\${lit}`,
    );
  if (word) src = `\\b(?:${src})\\b`;
  return new RegExp(src, ignoreCase ? "i" : "");
}

async function grep(args: string[], p: Proc): Promise<number> {
  const { flags, values, rest } = parseArgs(args, ["e", "m"]);
  const pattern = values.get("e") ?? rest.shift();
  if (pattern === undefined) return p.fail("usage: grep [OPTION]... PATTERNS [FILE]...", 2);
  let re: RegExp;
  try {
    re = toRegExp(pattern, flags.has("E"), flags.has("F"), flags.has("i"), flags.has("w"));
  } catch {
    return p.fail(`invalid regular expression '${pattern}'`, 2);
  }
  const max = values.has("m") ? Number(values.get("m")) : Number.POSITIVE_INFINITY;
  let matched = false;
  let failed = false;
  const files = await inputs(rest, p);
  for (const { name, text } of files) {
    if (text === undefined) {
      failed = true;
      continue;
    }
    let count = 0;
    for (const [i, line] of linesOf(text).entries()) {
      if (count >= max) break;
      if (re.test(line) === flags.has("v")) continue;
      count++;
      matched = true;
      if (flags.has("q")) return 0;
      if (flags.has("c") || flags.has("l")) continue;
      const prefix = (files.length > 1 ? `${name}:` : "") + (flags.has("n") ? `${i + 1}:` : "");
      if (flags.has("o") && !flags.has("v"))
        for (const m of line.match(new RegExp(re.source, `g${re.flags}`)) ?? []) p.out(`${prefix}${m}\n`);
      else p.out(`${prefix}${line}\n`);
    }
    if (flags.has("c")) p.out(`${files.length > 1 ? `${name}:` : ""}${count}\n`);
    if (flags.has("l") && count) p.out(`${name}\n`);
  }
  return failed && !flags.has("s") ? 2 : matched ? 0 : 1;
}

/** head/tail count: -n N, -N, --lines=N. */
function count(args: string[]): { n: number; fromStart: boolean; rest: string[] } {
  const legacy = args.findIndex((a) => /^-\d+$/.test(a));
  if (legacy >= 0)
    return { n: Number(args[legacy].slice(1)), fromStart: false, rest: args.filter((_, i) => i !== legacy) };
  const { values, rest } = parseArgs(args, ["n", "lines"]);
  const v = values.get("n") ?? values.get("lines") ?? "10";
  return { n: Math.abs(Number.parseInt(v, 10)) || 0, fromStart: v.startsWith("+"), rest };
}

async function head(args: string[], p: Proc): Promise<number> {
  const { n, rest } = count(args);
  if (!rest.length) {
    let i = 0;
    for await (const line of readLines(p.stdin)) {
      if (i++ >= n) break;
      p.out(`${line}\n`);
    }
    return 0;
  }
  let code = 0;
  for (const { name, text } of await inputs(rest, p)) {
    if (text === undefined) code = 1;
    else {
      if (rest.length > 1) p.out(`==> ${name} <==\n`);
      for (const l of linesOf(text).slice(0, n)) p.out(`${l}\n`);
    }
  }
  return code;
}

async function tail(args: string[], p: Proc): Promise<number> {
  const { n, fromStart, rest } = count(args.filter((a) => a !== "-f" && a !== "-F"));
  let code = 0;
  for (const { name, text } of await inputs(rest, p)) {
    if (text === undefined) code = 1;
    else {
      if (rest.length > 1) p.out(`==> ${name} <==\n`);
      const ls = linesOf(text);
      for (const l of fromStart ? ls.slice(Math.max(0, n - 1)) : ls.slice(Math.max(0, ls.length - n)))
        p.out(`${l}\n`);
    }
  }
  return code;
}

async function wc(args: string[], p: Proc): Promise<number> {
  const { flags, rest } = parseArgs(args);
  const which = ["l", "w", "c"].filter((f) => flags.has(f) || (f === "c" && flags.has("m")));
  const cols = which.length ? which : ["l", "w", "c"];
  const rows: { counts: number[]; name?: string }[] = [];
  let code = 0;
  for (const { name, text } of await inputs(rest, p)) {
    if (text === undefined) {
      code = 1;
      continue;
    }
    const all = {
      l: (text.match(/\n/g) ?? []).length,
      w: text.split(/\s+/).filter(Boolean).length,
      c: Buffer.byteLength(text),
    };
    rows.push({ counts: cols.map((c) => all[c as "l" | "w" | "c"]), name: rest.length ? name : undefined });
  }
  if (rows.length > 1)
    rows.push({ counts: cols.map((_, i) => rows.reduce((s, r) => s + r.counts[i], 0)), name: "total" });
  // GNU wc: a single count from stdin is unpadded; otherwise columns share one width (7 for stdin).
  const width = !rest.length
    ? cols.length === 1
      ? 1
      : 7
    : Math.max(...rows.flatMap((r) => r.counts.map((c) => String(c).length)));
  for (const r of rows)
    p.out(`${r.counts.map((c) => String(c).padStart(width)).join(" ")}${r.name ? ` ${r.name}` : ""}\n`);
  return code;
}

async function sort(args: string[], p: Proc): Promise<number> {
  const { flags, rest } = parseArgs(args, ["k", "t"]);
  const texts = await inputs(rest, p);
  let ls = texts.flatMap((t) => linesOf(t.text ?? ""));
  ls = flags.has("n") ? ls.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b)) : ls.sort();
  if (flags.has("r")) ls.reverse();
  if (flags.has("u")) ls = ls.filter((l, i) => i === 0 || l !== ls[i - 1]);
  for (const l of ls) p.out(`${l}\n`);
  return texts.some((t) => t.text === undefined) ? 2 : 0;
}

/** seq [FIRST [INCREMENT]] LAST */
function seq(args: string[], p: Proc): number {
  const nums = args.filter((a) => !/^-[a-z]/.test(a)).map(Number);
  if (!nums.length || nums.some((n) => !Number.isFinite(n)))
    return p.fail(`invalid argument: '${args.join(" ")}'`);
  const [first, inc, last] =
    nums.length === 1 ? [1, 1, nums[0]] : nums.length === 2 ? [nums[0], 1, nums[1]] : nums;
  if (inc === 0) return p.fail("invalid Zero increment value: '0'");
  const out: string[] = [];
  for (let x = first; inc > 0 ? x <= last : x >= last; x += inc) {
    out.push(String(x));
    if (out.length > 100_000) break; // a bound the simulated container keeps
  }
  if (out.length) p.out(`${out.join("\n")}\n`);
  return 0;
}

export function registerText(r: CommandRegistry): void {
  r.register("seq", seq);
  r.register("grep", grep)
    .register("egrep", (a, p) => grep(["-E", ...a], p))
    .register("head", head)
    .register("tail", tail)
    .register("wc", wc)
    .register("sort", sort);
}
