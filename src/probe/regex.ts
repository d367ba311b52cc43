// grep's patterns (POSIX basic and extended syntax, with GNU's \w \s \b \< \> and \| \+ \?)
// matched in linear time: the pattern is compiled to a Thompson NFA and run as a set of states
// over each line (the Pike VM), so no pattern backtracks and `(a+)+$` costs what `a+$` costs.
// Backreferences, the one feature no automaton can match, are refused. A program-size cap and a
// work budget bound what one probe may cost however large the output is.
import {
  type Assert,
  isWord,
  literal,
  MAX_REPEAT,
  type Node,
  Parser,
  PatternError,
  type Test,
} from "./regex-parse.js";

export { PatternError };

type Inst =
  | { op: "set"; test: Test }
  | { op: "assert"; k: Assert }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "match" };

/** State steps a pattern may take over its life when no budget is given. */
const DEFAULT_BUDGET = 20_000_000;

/** Instructions in one compiled pattern: enough for any pattern a person types. */
export const MAX_PROGRAM = 5000;

/** grep's limits in words, for the contract: what the parser, the compiler and the budget refuse. */
export const GREP_LIMITS = `no backreferences (\\1), repetition counts up to ${MAX_REPEAT}, at most ${MAX_PROGRAM} states with each {m,n} written out (x{100} is 100); a pattern too costly on the output stops with a note`;

function compile(root: Node): Inst[] {
  const prog: Inst[] = [];
  const push = (i: Inst) => {
    if (prog.length >= MAX_PROGRAM)
      throw new PatternError(
        `the pattern is too large (over ${MAX_PROGRAM} states with its {m,n} counts written out); shorten it or lower the counts`,
      );
    prog.push(i);
    return prog.length - 1;
  };
  const emit = (n: Node): void => {
    if (n.t === "set") push({ op: "set", test: n.test });
    else if (n.t === "assert") push({ op: "assert", k: n.k });
    else if (n.t === "cat") for (const x of n.xs) emit(x);
    else if (n.t === "alt") {
      const ends: number[] = [];
      n.xs.forEach((x, k) => {
        const split = k < n.xs.length - 1 ? push({ op: "split", x: 0, y: 0 }) : -1;
        if (split >= 0) (prog[split] as { x: number }).x = split + 1;
        emit(x);
        if (split >= 0) {
          ends.push(push({ op: "jmp", x: 0 }));
          (prog[split] as { y: number }).y = prog.length;
        }
      });
      for (const e of ends) (prog[e] as { x: number }).x = prog.length;
    } else {
      for (let k = 0; k < n.min; k++) emit(n.x);
      if (n.max === Infinity) {
        const loop = push({ op: "split", x: 0, y: 0 });
        emit(n.x);
        push({ op: "jmp", x: loop });
        prog[loop] = { op: "split", x: loop + 1, y: prog.length };
      } else {
        const splits: number[] = [];
        for (let k = n.min; k < n.max; k++) {
          splits.push(push({ op: "split", x: 0, y: 0 }));
          emit(n.x);
        }
        for (const s of splits) prog[s] = { op: "split", x: s + 1, y: prog.length };
      }
    }
  };
  emit(root);
  push({ op: "match" });
  return prog;
}

function holds(k: Assert, line: string, i: number): boolean {
  const before = isWord(line[i - 1]);
  const after = isWord(line[i]);
  switch (k) {
    case "bol":
      return i === 0;
    case "eol":
      return i === line.length;
    case "wordb":
      return before !== after;
    case "notwordb":
      return before === after;
    case "wordstart":
      return !before && after;
    case "wordend":
      return before && !after;
    case "notwordbefore":
      return !before;
    case "notwordafter":
      return !after;
  }
}

export interface GrepPattern {
  /** Whether the line holds a match; undefined once the work budget is spent. */
  test(line: string): boolean | undefined;
}

export interface PatternOptions {
  extended?: boolean;
  fixed?: boolean;
  icase?: boolean;
  word?: boolean;
  line?: boolean;
  /** State steps allowed over the pattern's life, all lines together. */
  budget?: number;
}

/** grep's -e patterns (each may hold several, one per line) as one linear-time matcher. */
export function compileGrep(patterns: string[], o: PatternOptions = {}): GrepPattern {
  const alts = patterns
    .flatMap((p) => p.split("\n"))
    .map((p): Node => {
      if (o.fixed) return { t: "cat", xs: p.split("").map((ch) => literal(ch, !!o.icase)) };
      return new Parser(p, !!o.extended, !!o.icase).parse();
    });
  let root: Node = alts.length === 1 ? alts[0] : { t: "alt", xs: alts };
  if (o.word)
    root = { t: "cat", xs: [{ t: "assert", k: "notwordbefore" }, root, { t: "assert", k: "notwordafter" }] };
  if (o.line) root = { t: "cat", xs: [{ t: "assert", k: "bol" }, root, { t: "assert", k: "eol" }] };
  const prog = compile(root);
  const mark = new Int32Array(prog.length);
  const stack = new Int32Array(prog.length * 2 + 2);
  let cur = new Int32Array(prog.length);
  let next = new Int32Array(prog.length);
  let gen = 0;
  let budget = o.budget ?? DEFAULT_BUDGET;
  return {
    test(line) {
      if (budget <= 0) return undefined;
      let matched = false;
      // add to `out` the reading states reachable from pc without reading, at position i
      const close = (pc: number, i: number, out: Int32Array, n: number): number => {
        let top = 0;
        stack[top++] = pc;
        while (top > 0) {
          const at = stack[--top];
          if (mark[at] === gen) continue;
          mark[at] = gen;
          const ins = prog[at];
          if (ins.op === "set") out[n++] = at;
          else if (ins.op === "match") matched = true;
          else if (ins.op === "jmp") stack[top++] = ins.x;
          else if (ins.op === "split") {
            stack[top++] = ins.y;
            stack[top++] = ins.x;
          } else if (holds(ins.k, line, i)) stack[top++] = at + 1;
        }
        return n;
      };
      gen++;
      let count = close(0, 0, cur, 0);
      for (let i = 0; i < line.length && !matched; i++) {
        budget -= count + 1;
        if (budget <= 0) return undefined;
        gen++;
        const c = line[i];
        let n = 0;
        for (let k = 0; k < count; k++) {
          const pc = cur[k];
          if ((prog[pc] as { test: Test }).test(c)) n = close(pc + 1, i + 1, next, n);
        }
        n = close(0, i + 1, next, n); // a match may start at every position
        [cur, next] = [next, cur];
        count = n;
      }
      return matched;
    },
  };
}
