// grep's patterns (POSIX basic and extended syntax, with GNU's \w \s \b \< \> and \| \+ \?)
// matched in linear time: the pattern is compiled to a Thompson NFA and run as a set of states
// over each line (the Pike VM), so no pattern backtracks and `(a+)+$` costs what `a+$` costs.
// Backreferences, the one feature no automaton can match, are refused. A program-size cap and a
// work budget bound what one probe may cost however large the output is.

export class PatternError extends Error {}

type Test = (c: string) => boolean;
type Assert =
  | "bol"
  | "eol"
  | "wordb"
  | "notwordb"
  | "wordstart"
  | "wordend"
  | "notwordbefore"
  | "notwordafter";
type Node =
  | { t: "set"; test: Test }
  | { t: "assert"; k: Assert }
  | { t: "cat"; xs: Node[] }
  | { t: "alt"; xs: Node[] }
  | { t: "rep"; x: Node; min: number; max: number };

const isWord = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);
const CLASSES: Record<string, Test> = {
  alpha: (c) => /[A-Za-z]/.test(c),
  digit: (c) => /[0-9]/.test(c),
  alnum: (c) => /[A-Za-z0-9]/.test(c),
  upper: (c) => /[A-Z]/.test(c),
  lower: (c) => /[a-z]/.test(c),
  space: (c) => /\s/.test(c),
  blank: (c) => c === " " || c === "\t",
  punct: (c) => /[!-/:-@[-`{-~]/.test(c),
  print: (c) => c >= " " && c !== "\x7f",
  graph: (c) => c > " " && c !== "\x7f",
  cntrl: (c) => c < " " || c === "\x7f",
  xdigit: (c) => /[0-9A-Fa-f]/.test(c),
};
const ESCAPES: Record<string, Node> = {
  w: { t: "set", test: isWord },
  W: { t: "set", test: (c) => !isWord(c) },
  s: { t: "set", test: (c) => /\s/.test(c) },
  S: { t: "set", test: (c) => !/\s/.test(c) },
  b: { t: "assert", k: "wordb" },
  B: { t: "assert", k: "notwordb" },
  "<": { t: "assert", k: "wordstart" },
  ">": { t: "assert", k: "wordend" },
  "`": { t: "assert", k: "bol" },
  "'": { t: "assert", k: "eol" },
};

function literal(ch: string, icase: boolean): Node {
  if (!icase) return { t: "set", test: (c) => c === ch };
  const l = ch.toLowerCase();
  return { t: "set", test: (c) => c.toLowerCase() === l };
}

/** A POSIX regex read as GNU grep reads it, `extended` for -E. */
class Parser {
  private i = 0;
  constructor(
    private readonly p: string,
    private readonly extended: boolean,
    private readonly icase: boolean,
  ) {}

  parse(): Node {
    const n = this.alt(0);
    if (this.i < this.p.length) throw new PatternError(this.extended ? "unmatched )" : "unmatched \\)");
    return n;
  }

  private lit(ch: string): Node {
    return literal(ch, this.icase);
  }
  private at(s: string) {
    return this.p.startsWith(s, this.i);
  }
  private altSep() {
    return this.extended ? this.at("|") : this.at("\\|");
  }
  // a stray `)` is a literal in ERE (GNU), a stray `\)` an error in BRE
  private close(depth: number) {
    return this.extended ? depth > 0 && this.at(")") : this.at("\\)");
  }

  private alt(depth: number): Node {
    const xs = [this.cat(depth)];
    while (this.altSep()) {
      this.i += this.extended ? 1 : 2;
      xs.push(this.cat(depth));
    }
    return xs.length === 1 ? xs[0] : { t: "alt", xs };
  }

  private cat(depth: number): Node {
    const xs: Node[] = [];
    const start = this.i;
    while (this.i < this.p.length && !this.altSep() && !this.close(depth)) {
      const atom = this.atom(depth, this.i === start);
      let q = this.quantifier();
      let node = atom;
      while (q) {
        node = { t: "rep", x: node, min: q[0], max: q[1] };
        q = this.quantifier();
      }
      xs.push(node);
    }
    return xs.length === 1 ? xs[0] : { t: "cat", xs };
  }

  /** `*`, `+`, `?`, `{m,n}` (ERE) or `*`, `\+`, `\?`, `\{m,n\}` (BRE), else undefined. */
  private quantifier(): [number, number] | undefined {
    const e = this.extended;
    if (this.at("*")) return this.step(1, [0, Infinity]);
    if (this.at(e ? "+" : "\\+")) return this.step(e ? 1 : 2, [1, Infinity]);
    if (this.at(e ? "?" : "\\?")) return this.step(e ? 1 : 2, [0, 1]);
    const m = (e ? /^\{(\d*)(,(\d*))?\}/ : /^\\\{(\d*)(,(\d*))?\\\}/).exec(this.p.slice(this.i));
    if (!m || (m[1] === "" && m[3] === undefined)) return undefined;
    const min = Number(m[1] || 0);
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    if (max < min) throw new PatternError("invalid content of \\{\\}");
    if (min > 255 || (max !== Infinity && max > 255))
      throw new PatternError("repetition counts above 255 are not supported");
    return this.step(m[0].length, [min, max]);
  }
  private step<T>(n: number, v: T): T {
    this.i += n;
    return v;
  }

  private atom(depth: number, first: boolean): Node {
    const c = this.p[this.i];
    const e = this.extended;
    if (e && c === "(") {
      this.i++;
      const n = this.alt(depth + 1);
      if (!this.at(")")) throw new PatternError("unmatched (");
      this.i++;
      return n;
    }
    if (!e && this.at("\\(")) {
      this.i += 2;
      const n = this.alt(depth + 1);
      if (!this.at("\\)")) throw new PatternError("unmatched \\(");
      this.i += 2;
      return n;
    }
    // a quantifier with nothing before it is a literal, as GNU grep reads `*a` or `+a`
    if (first && (c === "*" || (e && (c === "+" || c === "?")))) return this.step(1, this.lit(c));
    if (c === "[") return this.bracket();
    if (c === ".") return this.step(1, { t: "set", test: () => true });
    // in BRE `^` anchors only first and `$` only last (of the pattern or a group or branch)
    if (c === "^" && (e || first)) return this.step(1, { t: "assert", k: "bol" });
    if (c === "$" && (e || this.endsHere(this.i + 1))) return this.step(1, { t: "assert", k: "eol" });
    if (c === "\\") {
      const n = this.p[this.i + 1];
      if (n === undefined) throw new PatternError("trailing backslash");
      this.i += 2;
      if (/[1-9]/.test(n))
        throw new PatternError(
          "backreferences (\\1-\\9) are not supported: no automaton matches them in linear time",
        );
      return ESCAPES[n] ?? this.lit(n);
    }
    return this.step(1, this.lit(c));
  }

  private endsHere(k: number): boolean {
    const rest = this.p.slice(k);
    return rest === "" || rest.startsWith("\\)") || rest.startsWith("\\|");
  }

  /** `[...]`: `]` first is literal, ranges, [:class:], a backslash is literal. */
  private bracket(): Node {
    let j = this.i + 1;
    const negate = this.p[j] === "^";
    if (negate) j++;
    const tests: Test[] = [];
    let firstChar = true;
    while (j < this.p.length && (this.p[j] !== "]" || firstChar)) {
      firstChar = false;
      const cls = /^\[([:.=])(\w*)\1\]/.exec(this.p.slice(j));
      if (cls) {
        if (cls[1] === ":") {
          const t = CLASSES[cls[2]];
          if (!t) throw new PatternError(`invalid character class [:${cls[2]}:]`);
          tests.push(t);
        } else for (const ch of cls[2]) tests.push((c) => c === ch);
        j += cls[0].length;
        continue;
      }
      const lo = this.p[j];
      if (this.p[j + 1] === "-" && j + 2 < this.p.length && this.p[j + 2] !== "]") {
        const hi = this.p[j + 2];
        if (hi < lo) throw new PatternError(`invalid range end ${lo}-${hi}`);
        tests.push((c) => c >= lo && c <= hi);
        j += 3;
      } else {
        tests.push((c) => c === lo);
        j++;
      }
    }
    if (j >= this.p.length) throw new PatternError("unmatched [, [^, [:, [., or [=");
    this.i = j + 1;
    const any = (c: string) => tests.some((t) => t(c));
    const hit = this.icase ? (c: string) => any(c) || any(c.toLowerCase()) || any(c.toUpperCase()) : any;
    return { t: "set", test: negate ? (c) => !hit(c) : hit };
  }
}

type Inst =
  | { op: "set"; test: Test }
  | { op: "assert"; k: Assert }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "match" };

/** State steps one grep may take over all its lines: well under a second. */
const DEFAULT_BUDGET = 20_000_000;

/** Instructions in one compiled pattern: enough for any pattern a person types. */
export const MAX_PROGRAM = 5000;

function compile(root: Node): Inst[] {
  const prog: Inst[] = [];
  const push = (i: Inst) => {
    if (prog.length >= MAX_PROGRAM) throw new PatternError("the pattern is too large; shorten it");
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
