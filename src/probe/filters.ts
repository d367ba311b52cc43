// The pipes the reference's agents write after kubectl (`| grep`, `| head`, `| tail`, `| wc -l`),
// applied in-process to the captured output instead of spawning a shell. grep reads GNU grep's
// basic (default) and extended (-E) syntax and matches in linear time (regex.ts).
import { has, lastValue, parseFlags } from "./flags.js";
import { compileGrep, PatternError, type PatternOptions } from "./regex.js";

export type Filter = { apply: (text: string) => string } | { refusal: string };

/** Each filter with its one-line usage (the contract's and the refusals'), so none goes unstated. */
interface FilterRule {
  usage: string;
  parse: (args: string[]) => Filter;
}

/** State steps one grep may take: a base, and so many per character of what it reads. */
const BUDGET_BASE = 1_000_000;
const BUDGET_PER_CHAR = 8;

const lines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
const join = (ls: string[]) => (ls.length ? `${ls.join("\n")}\n` : "");

function grep(args: string[]): Filter {
  const p = parseFlags(args, {
    valueShort: "eABC",
    boolShort: "ivEFwxcnsG",
    valueLong: ["regexp", "after-context", "before-context", "context"],
    boolLong: [
      "ignore-case",
      "invert-match",
      "extended-regexp",
      "fixed-strings",
      "word-regexp",
      "line-regexp",
      "count",
      "line-number",
      "basic-regexp",
      "no-messages",
    ],
  });
  if ("error" in p) return { refusal: `grep: ${p.error}; ${FILTERS_ALLOWED}` };
  const patterns = p.flags.filter((f) => f.name === "-e" || f.name === "--regexp").map((f) => f.value ?? "");
  if (!patterns.length && p.positionals.length) patterns.push(p.positionals.shift() as string);
  if (!patterns.length) return { refusal: "grep needs a pattern" };
  if (p.positionals.length)
    return { refusal: "grep after a pipe reads the piped output only; give just the pattern" };
  const on = (...n: string[]) => has(p.flags, ...n);
  const options: PatternOptions = {
    extended: on("-E", "--extended-regexp"),
    fixed: on("-F", "--fixed-strings"),
    icase: on("-i", "--ignore-case"),
    word: on("-w", "--word-regexp"),
    line: on("-x", "--line-regexp"),
  };
  try {
    compileGrep(patterns, options);
  } catch (e) {
    if (e instanceof PatternError) return { refusal: `grep: cannot use the pattern: ${e.message}` };
    throw e;
  }
  const invert = on("-v", "--invert-match");
  const num = (...n: string[]) =>
    Number(lastValue(p.flags, ...n) ?? lastValue(p.flags, "-C", "--context") ?? 0);
  const after = num("-A", "--after-context");
  const before = num("-B", "--before-context");
  if (![after, before].every((n) => Number.isInteger(n) && n >= 0))
    return { refusal: "grep: -A/-B/-C take a number of lines" };
  const numbered = on("-n", "--line-number");
  return {
    apply: (text) => {
      const ls = lines(text);
      // work in proportion to the output: a pattern a person writes keeps a few states alive
      // per character; one that keeps hundreds stops early, with a note
      const re = compileGrep(patterns, { ...options, budget: BUDGET_BASE + BUDGET_PER_CHAR * text.length });
      const hits: number[] = [];
      let k = 0;
      for (; k < ls.length; k++) {
        const m = re.test(ls[k]);
        if (m === undefined) break;
        if (m !== invert) hits.push(k);
      }
      // the work budget is spent: say where grep stopped rather than run on
      const stopped =
        k < ls.length
          ? `[grep stopped at line ${k + 1} of ${ls.length}: the pattern costs too much on this output; simplify it or narrow the command]\n`
          : "";
      if (on("-c", "--count")) return `${hits.length}\n${stopped}`;
      // with context, as GNU grep prints it: "N:" for matches, "N-" for context, "--" between groups
      const shown = new Set<number>();
      for (const k of hits)
        for (let j = Math.max(0, k - before); j <= Math.min(ls.length - 1, k + after); j++) shown.add(j);
      const hit = new Set(hits);
      const out: string[] = [];
      let last = -1;
      for (const k of [...shown].sort((a, b) => a - b)) {
        if ((after || before) && last >= 0 && k > last + 1) out.push("--");
        out.push(numbered ? `${k + 1}${hit.has(k) ? ":" : "-"}${ls[k]}` : ls[k]);
        last = k;
      }
      return join(out) + stopped;
    },
  };
}

/** head and tail: -n N, -nN, -N, --lines=N (tail also -n +N: from line N on). */
function ends(which: "head" | "tail", args: string[]): Filter {
  const norm = args.map((a) => (/^-\d+$/.test(a) ? `-n${a.slice(1)}` : a));
  const p = parseFlags(norm, { valueShort: "n", boolShort: "q", valueLong: ["lines"], boolLong: ["quiet"] });
  if ("error" in p || p.positionals.length)
    return { refusal: `${which} after a pipe takes only -n N; ${FILTERS_ALLOWED}` };
  const raw = lastValue(p.flags, "-n", "--lines") ?? "10";
  const from = which === "tail" && raw.startsWith("+");
  const n = Number(from ? raw.slice(1) : raw);
  if (!Number.isInteger(n) || n < 0) return { refusal: `${which}: invalid number of lines ${raw}` };
  return {
    apply: (text) => {
      const ls = lines(text);
      if (which === "head") return join(ls.slice(0, n));
      return join(from ? ls.slice(Math.max(0, n - 1)) : n === 0 ? [] : ls.slice(-n));
    },
  };
}

function wc(args: string[]): Filter {
  const p = parseFlags(args, {
    valueShort: "",
    boolShort: "lwcm",
    valueLong: [],
    boolLong: ["lines", "words", "bytes", "chars"],
  });
  if ("error" in p || p.positionals.length)
    return { refusal: `wc after a pipe counts the piped output; ${FILTERS_ALLOWED}` };
  const on = (...n: string[]) => has(p.flags, ...n);
  const all = p.flags.length === 0;
  return {
    apply: (text) => {
      const counts: number[] = [];
      if (all || on("-l", "--lines")) counts.push((text.match(/\n/g) ?? []).length);
      if (all || on("-w", "--words")) counts.push(text.split(/\s+/).filter(Boolean).length);
      if (on("-m", "--chars")) counts.push(text.length);
      if (all || on("-c", "--bytes")) counts.push(Buffer.byteLength(text));
      return `${counts.join(" ")}\n`;
    },
  };
}

const FILTERS: Record<string, FilterRule> = {
  grep: {
    usage: "grep [-i -v -E -F -w -x -c -n -A N -B N -C N -e PATTERN] PATTERN (also egrep, fgrep)",
    parse: grep,
  },
  head: { usage: "head -n N", parse: (args) => ends("head", args) },
  tail: { usage: "tail -n N (or +N)", parse: (args) => ends("tail", args) },
  wc: { usage: "wc [-l -w -c -m]", parse: wc },
};

/** Every filter by name, for the contract and its test. */
export const FILTER_RULES: Readonly<Record<string, FilterRule>> = FILTERS;

export const FILTERS_ALLOWED = `after a pipe: ${Object.values(FILTERS)
  .map((f) => f.usage)
  .join(", ")}`;

export function parseFilter(argv: string[]): Filter {
  const [name = "", ...args] = argv;
  if (name === "egrep" || name === "fgrep") return grep([name === "egrep" ? "-E" : "-F", ...args]);
  const rule = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
  return rule ? rule.parse(args) : { refusal: `| ${name} is not available; ${FILTERS_ALLOWED}` };
}
