// Reading grep's patterns as GNU grep reads them (POSIX basic syntax by default, extended with
// -E, and GNU's \w \W \s \S \b \B \< \> and, in basic syntax, \| \+ \?) into a small tree that
// regex.ts compiles to an automaton. Backreferences are refused here: no automaton matches them.

export class PatternError extends Error {}

/** The largest count `{m,n}` may give (POSIX's RE_DUP_MAX minimum; each copy is compiled). */
export const MAX_REPEAT = 255;

export type Test = (c: string) => boolean;
export type Assert =
  | "bol"
  | "eol"
  | "wordb"
  | "notwordb"
  | "wordstart"
  | "wordend"
  | "notwordbefore"
  | "notwordafter";
export type Node =
  | { t: "set"; test: Test }
  | { t: "assert"; k: Assert }
  | { t: "cat"; xs: Node[] }
  | { t: "alt"; xs: Node[] }
  | { t: "rep"; x: Node; min: number; max: number };

export const isWord = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);
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

export function literal(ch: string, icase: boolean): Node {
  if (!icase) return { t: "set", test: (c) => c === ch };
  const l = ch.toLowerCase();
  return { t: "set", test: (c) => c.toLowerCase() === l };
}

/** A POSIX regex read as GNU grep reads it, `extended` for -E. */
export class Parser {
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
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT))
      throw new PatternError(`repetition counts above ${MAX_REPEAT} are not supported`);
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
